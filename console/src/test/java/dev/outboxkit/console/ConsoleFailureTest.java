package dev.outboxkit.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** A failure nobody foresaw is answered 500, with the security headers and without its message. */
class ConsoleFailureTest {
  @Test
  void anUnexpectedFailureIsAnswered500WithoutItsMessage() throws Exception {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL("jdbc:h2:mem:console-failure");
    OutboxConsole console =
        OutboxConsole.builder(ds)
            .access(
                caller -> {
                  throw new IllegalStateException("authoriser broke at host db-7.internal");
                })
            .build();
    Recorded answer = new Recorded();

    console.handle(answer);

    assertThat(answer.status).isEqualTo(500);
    assertThat(answer.body).doesNotContain("db-7.internal");
    assertThat(answer.headers).containsKey("Content-Security-Policy");
  }

  /** A GET of the overview by a signed-in caller; records the answer. */
  private static final class Recorded implements ConsoleExchange {
    int status;
    String body;
    Map<String, String> headers;

    @Override
    public Optional<String> name() {
      return Optional.of("ops");
    }

    @Override
    public boolean isInRole(String role) {
      return true;
    }

    @Override
    public String method() {
      return "GET";
    }

    @Override
    public String path() {
      return "/";
    }

    @Override
    public String parameter(String name) {
      return null;
    }

    @Override
    public String header(String name) {
      return null;
    }

    @Override
    public String origin() {
      return "http://127.0.0.1";
    }

    @Override
    public String mountPath() {
      return "";
    }

    @Override
    public void respond(int status, Map<String, String> headers, byte[] body) {
      this.status = status;
      this.headers = headers;
      this.body = new String(body, StandardCharsets.UTF_8);
    }
  }
}
