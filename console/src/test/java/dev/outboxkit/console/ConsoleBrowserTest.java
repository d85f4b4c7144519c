package dev.outboxkit.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxkit.http.WebhookTransport;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.http.HttpReceiver;
import java.io.File;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in headless Chromium (Debian's chromium and chromium-driver; CI installs them), on
 * PostgreSQL where a server is configured, else H2: a viewer looks and cannot act, an operator
 * dry-runs a replay, confirms it, a relay delivers the replayed events to a real webhook receiver
 * and the audit row appears; hostile values render as text. Writes the screenshots the docs show.
 */
class ConsoleBrowserTest {
  private static final String CHROMIUM = "/usr/bin/chromium";
  private static final String DRIVER = "/usr/bin/chromedriver";
  private static final String SECRET = "whsec_" + "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0";

  private static ConsoleFixture f;

  @BeforeAll
  static void start() throws Exception {
    boolean installed = new File(CHROMIUM).canExecute() && new File(DRIVER).canExecute();
    if (System.getenv("CI") != null) {
      assertThat(installed).as("CI installs chromium and chromium-driver (.ci/run)").isTrue();
    }
    assumeTrue(installed, "needs Debian's chromium and chromium-driver");
    f =
        new ConsoleFixture(
            System.getenv("OUTBOXKIT_TEST_POSTGRES_URL") != null ? Flavor.POSTGRES : Flavor.H2);
  }

  @AfterAll
  static void stop() {
    if (f != null) {
      f.close();
    }
  }

  private static WebDriver browser() throws Exception {
    Path profile = Files.createTempDirectory(Path.of("target"), "chrome-profile");
    ChromeOptions o = new ChromeOptions();
    o.setBinary(CHROMIUM);
    o.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1280,900",
        "--user-data-dir=" + profile.toAbsolutePath());
    // A driver service per browser: quit() stops the service it was started with. An explicit
    // driver path, so Selenium Manager never runs (it would try the network).
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(DRIVER))
            .usingAnyFreePort()
            .withLogFile(new File("target/chromedriver.log"))
            .build();
    return new ChromeDriver(service, o);
  }

  /** The console's URL with the user's credentials, which Chromium then sends for the origin. */
  private static String url(String user, String path) {
    return "http://"
        + user
        + ":"
        + URLEncoder.encode(ConsoleFixture.PASSWORD, StandardCharsets.UTF_8).replace("+", "%20")
        + "@"
        + f.base.substring("http://".length())
        + path;
  }

  private static WebDriverWait waiting(WebDriver d) {
    return new WebDriverWait(d, Duration.ofSeconds(30));
  }

  @Test
  void aViewerLooksAnOperatorReplaysAndTheRelayDelivers() throws Exception {
    f.execute("DELETE FROM outbox_event");
    for (int i = 0; i < 4; i++) {
      f.append("o" + i, "OrderPlaced", "crm", "{\"order\":" + i + "}");
    }
    UUID d1 = f.append("4711", "OrderPaid", "crm", "{}");
    UUID d2 = f.append("4712", "OrderPaid", "crm", "{}");
    UUID waiting = f.append("4711", "OrderShipped", "crm", "{}");
    f.dead(d1, "HTTP 503 from https://crm.example/orders/4711");
    f.dead(d2, "HTTP 503 from https://crm.example/orders/4712");
    Path shots = Files.createDirectories(Path.of("target/screenshots"));

    WebDriver viewer = browser();
    try {
      viewer.get(url("viewer", "/"));
      waiting(viewer).until(ExpectedConditions.presenceOfElementLocated(By.id("counts")));
      assertThat(viewer.findElement(By.id("pending")).getText())
          .isEqualTo(Long.toString(f.count("status = 'PENDING'")));
      assertThat(viewer.findElement(By.id("dead")).getText()).isEqualTo("2");
      Files.write(shots.resolve("console-overview.png"), shot(viewer));
      viewer.findElement(By.linkText("Failures")).click();
      viewer.findElement(By.linkText("HTTP 503 from <url>")).click();
      waiting(viewer).until(ExpectedConditions.presenceOfElementLocated(By.id("group-events")));
      assertThat(viewer.findElements(By.id("dry-run-replay")))
          .as("no replay for a viewer")
          .isEmpty();
      viewer.get(url("viewer", "/aggregates?type=Order&id=4711"));
      waiting(viewer).until(ExpectedConditions.presenceOfElementLocated(By.id("timeline")));
      assertThat(viewer.findElement(By.id("timeline")).getText())
          .contains("held behind DEAD event seq");
      Files.write(shots.resolve("console-aggregate.png"), shot(viewer));
    } finally {
      viewer.quit();
    }

    try (HttpReceiver receiver = HttpReceiver.start();
        WebhookTransport transport =
            WebhookTransport.builder(receiver.uri("/hooks"), SECRET)
                .allowHttp()
                .allowPrivateAddresses() // the receiver is on 127.0.0.1
                .build();
        OutboxRelay relay =
            OutboxRelay.builder(f.db.dataSource(), transport)
                .name("browser")
                .pollInterval(Duration.ofMillis(50))
                .build()) {
      relay.start();
      Await.until(
          () -> receiver.requests("/hooks").size() == 4,
          Duration.ofSeconds(60),
          "the four due events delivered");
      WebDriver operator = browser();
      try {
        operator.get(url("operator", "/failures"));
        operator.findElement(By.linkText("HTTP 503 from <url>")).click();
        waiting(operator)
            .until(ExpectedConditions.elementToBeClickable(By.id("dry-run-replay")))
            .click();
        waiting(operator).until(ExpectedConditions.presenceOfElementLocated(By.id("dry-run-rows")));
        assertThat(operator.findElement(By.id("dry-run-rows")).getText()).isEqualTo("2");
        assertThat(f.status(d1)).as("a dry run changes nothing").isEqualTo("DEAD");
        Files.write(shots.resolve("console-confirm.png"), shot(operator));
        operator.findElement(By.id("confirm-replay")).click();
        waiting(operator).until(ExpectedConditions.presenceOfElementLocated(By.id("audit")));
        assertThat(operator.findElement(By.id("audit")).getText())
            .contains("operator", "replay", "reason=HTTP 503 from <url>", "done");
      } finally {
        operator.quit();
      }
      Await.until(
          () -> receiver.requests("/hooks").size() == 7,
          Duration.ofSeconds(60),
          "the two replayed events and the one waiting behind them delivered");
      assertThat(f.status(d1)).isEqualTo("PUBLISHED");
      assertThat(f.status(d2)).isEqualTo("PUBLISHED");
      assertThat(f.status(waiting)).isEqualTo("PUBLISHED");
    }
  }

  @Test
  void hostileValuesAreShownAsText() throws Exception {
    UUID id = f.append("h1", "OrderPlaced", "crm", "{}");
    String hostile = "<img src=x onerror=\"document.title='pwned'\">\u202Eevil";
    f.update(
        id,
        "event_type = ?, last_error = ?, status = 'DEAD', published_at = " + f.now(),
        hostile,
        hostile);
    WebDriver d = browser();
    try {
      d.get(url("operator", "/events/" + id));
      waiting(d).until(ExpectedConditions.presenceOfElementLocated(By.id("event")));
      assertThat(d.getTitle()).doesNotContain("pwned");
      assertThat(d.findElements(By.cssSelector("main img"))).isEmpty();
      assertThat(d.findElement(By.id("event")).getText()).contains("<img src=x onerror=");
    } finally {
      d.quit();
    }
  }

  private static byte[] shot(WebDriver d) {
    return ((org.openqa.selenium.TakesScreenshot) d).getScreenshotAs(OutputType.BYTES);
  }
}
