package dev.outboxkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TestDatabasesTest {

  @ParameterizedTest
  @EnumSource(Flavor.class)
  void each_flavor_hands_out_an_isolated_database_of_the_right_product(Flavor flavor)
      throws Exception {
    try (TestDatabase db = TestDatabases.create(flavor, "kit");
        Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE probe (id INT PRIMARY KEY)");
      s.execute("INSERT INTO probe VALUES (1)");
      try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM probe")) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(1);
      }
      assertThat(TestDatabases.detect(db::connect, db.name())).isEqualTo(flavor);
    }
  }
}
