package dev.outboxkit.samples.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Distributions;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.Ports;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The servlet sample's WAR file, deployed as operations deploy it: a Tomcat distribution from Maven
 * Central, unpacked and started as its own process with {@code bin/catalina.sh}, the JDBC driver in
 * its {@code lib/}, the database and webhook settings given as the JVM system properties the WAR's
 * {@code META-INF/context.xml} reads, the WAR uploaded through the manager's text interface.
 * Undeploying it logs no leak warning in {@code catalina.sh}'s full leak detection and leaves
 * nothing IN_FLIGHT. One subclass per database.
 *
 * <p>One source for both servlet generations: here the jakarta WAR in Tomcat 10.1; samples-javaee
 * copies this class and runs it on the javax WAR in Tomcat 9. The build names the WAR and the
 * distribution's zip in the system properties {@code servlet.war} and {@code tomcat.distribution}.
 */
abstract class TomcatDistributionServletSampleTest extends ServletSampleContract {
  private static final Duration STARTUP = Duration.ofSeconds(120);
  private static final String DEPLOYER = "deployer";
  private static final String DEPLOYER_PASSWORD = "deploy-" + System.nanoTime();

  private final HttpClient manager = HttpClient.newHttpClient();
  private Path home;
  private Process tomcat;
  private int port;

  @Override
  URI deploy(URI webhooks) throws Exception {
    home = Distributions.unpack(Path.of(System.getProperty("tomcat.distribution")), "tomcat-");
    port = Ports.unused();
    configure(Ports.unused());
    copyDriverIntoLib();
    ProcessBuilder catalina =
        new ProcessBuilder(home.resolve("bin/catalina.sh").toString(), "run")
            .redirectErrorStream(true)
            .redirectOutput(home.resolve("logs/console.log").toFile());
    catalina.environment().put("JAVA_HOME", System.getProperty("java.home"));
    catalina.environment().put("JAVA_OPTS", "-Xmx256m");
    catalina.environment().put("CATALINA_HOME", home.toString());
    catalina.environment().put("CATALINA_BASE", home.toString());
    writeSettings(webhooks);
    tomcat = catalina.start();
    Await.until(this::answering, STARTUP, () -> "Tomcat answering on port " + port + log());

    HttpResponse<String> deployed =
        manager.send(
            managerRequest("deploy?path=/shop")
                .PUT(HttpRequest.BodyPublishers.ofFile(Path.of(System.getProperty("servlet.war"))))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(deployed.body()).as("the manager's answer%s", log()).startsWith("OK - Deployed");
    return URI.create("http://127.0.0.1:" + port + "/shop/orders");
  }

  @Override
  boolean sharesThisJvm() {
    return false;
  }

  @Override
  void undeploy() throws Exception {
    if (tomcat == null) {
      return;
    }
    try {
      int logged = logLines().size();
      HttpResponse<String> undeployed =
          manager.send(
              managerRequest("undeploy?path=/shop").GET().build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(undeployed.body()).startsWith("OK - Undeployed");
      List<String> atUndeploy = logLines().subList(logged, logLines().size());
      System.out.printf(
          "Tomcat's log while undeploying (%d lines)%s%n",
          atUndeploy.size(),
          atUndeploy.stream().map(line -> "\n  " + line).reduce("", String::concat));
      assertThat(logLines()).as("Tomcat's log").noneMatch(line -> line.contains(SECRET));
      // The relay handed back what it held; Tomcat's leak check found nothing of the app's.
      assertThat(admin().count(EventStatus.IN_FLIGHT)).isZero();
      assertThat(logLines())
          .as("warnings of Tomcat's leak check on undeploy")
          .noneMatch(line -> line.contains("failed to stop it") || line.contains("memory leak"));
    } finally {
      tomcat.destroy();
      if (!tomcat.waitFor(30, TimeUnit.SECONDS)) {
        tomcat.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      tomcat = null;
      Distributions.delete(home);
    }
  }

  /**
   * What the WAR's context.xml reads, the DataSource's and the webhook's settings, as system
   * properties in {@code conf/catalina.properties}: Tomcat logs every command-line argument at
   * start, so a password or secret passed as {@code -D} would end up in its log.
   */
  private void writeSettings(URI webhooks) throws IOException {
    Properties settings = new Properties();
    settings.setProperty(
        "orders.db.driver",
        flavor() == Flavor.POSTGRES ? "org.postgresql.Driver" : "com.mysql.cj.jdbc.Driver");
    settings.setProperty("orders.db.url", db.jdbcUrl());
    settings.setProperty("orders.db.user", credential(db.user(), "user"));
    settings.setProperty("orders.db.password", credential(db.password(), "password"));
    settings.setProperty("orders.webhook.url", webhooks.toString());
    settings.setProperty("orders.webhook.secret", SECRET);
    settings.setProperty("orders.webhook.allow-local", "true");
    StringWriter text = new StringWriter();
    settings.store(text, "the servlet sample's settings");
    Path file = home.resolve("conf/catalina.properties");
    Files.writeString(file, Files.readString(file) + "\n" + text);
  }

  /** The given credential, or the one the JDBC URL carries as a query parameter, or empty. */
  private String credential(String given, String parameter) {
    if (given != null) {
      return given;
    }
    Matcher m = Pattern.compile("[?&]" + parameter + "=([^&]*)").matcher(db.jdbcUrl());
    return m.find() ? URLDecoder.decode(m.group(1), StandardCharsets.UTF_8) : "";
  }

  /**
   * Ports of our own, on loopback only, a manager user for the deployment, and no web app but the
   * manager (the distribution's examples and docs only slow the start).
   */
  private void configure(int shutdownPort) throws IOException {
    for (String app : new String[] {"ROOT", "docs", "examples", "host-manager"}) {
      Distributions.delete(home.resolve("webapps").resolve(app));
    }
    Path server = home.resolve("conf/server.xml");
    String xml = Files.readString(server);
    xml = xml.replace("<Server port=\"8005\"", "<Server port=\"" + shutdownPort + "\"");
    xml =
        xml.replace(
            "<Connector port=\"8080\" protocol=\"HTTP/1.1\"",
            "<Connector port=\"" + port + "\" address=\"127.0.0.1\" protocol=\"HTTP/1.1\"");
    assertThat(xml).contains("port=\"" + port + "\"").contains("port=\"" + shutdownPort + "\"");
    Files.writeString(server, xml);
    // The deployer, and the console's users in the realm web.xml's login-config names.
    StringBuilder entries = new StringBuilder();
    entries.append("<user username=\"" + DEPLOYER + "\" password=\"" + DEPLOYER_PASSWORD);
    entries.append("\" roles=\"manager-script\"/>\n");
    for (String[] u : CONSOLE_USERS) {
      entries.append("<user username=\"" + u[0] + "\" password=\"" + u[1]);
      entries.append("\" roles=\"" + u[2] + "\"/>\n");
    }
    Path users = home.resolve("conf/tomcat-users.xml");
    Files.writeString(
        users, Files.readString(users).replace("</tomcat-users>", entries + "</tomcat-users>"));
  }

  private void copyDriverIntoLib() throws Exception {
    Class<?> driver =
        Class.forName(
            flavor() == Flavor.POSTGRES ? "org.postgresql.Driver" : "com.mysql.cj.jdbc.Driver");
    Path jar = Path.of(driver.getProtectionDomain().getCodeSource().getLocation().toURI());
    Files.copy(jar, home.resolve("lib").resolve(jar.getFileName()));
  }

  private HttpRequest.Builder managerRequest(String command) {
    String auth = DEPLOYER + ":" + DEPLOYER_PASSWORD;
    return HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/manager/text/" + command))
        .header(
            "Authorization",
            "Basic " + Base64.getEncoder().encodeToString(auth.getBytes(StandardCharsets.UTF_8)))
        .timeout(Duration.ofSeconds(60));
  }

  private boolean answering() {
    if (!tomcat.isAlive()) {
      throw new IllegalStateException("Tomcat ended with " + tomcat.exitValue() + log());
    }
    try {
      manager.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/manager/text/list"))
              .timeout(Duration.ofSeconds(5))
              .build(),
          HttpResponse.BodyHandlers.discarding());
      return true;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private List<String> logLines() throws IOException {
    Path console = home.resolve("logs/console.log");
    return Files.exists(console) ? Files.readAllLines(console) : List.of();
  }

  private String log() {
    try {
      List<String> lines = logLines();
      return "; Tomcat's console:\n"
          + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "; no console log: " + e;
    }
  }
}
