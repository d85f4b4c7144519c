package dev.outboxkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.opentest4j.TestAbortedException;

/**
 * Runs small test classes that use {@link FreshDatabase} (the fixtures below, enabled only while
 * this test runs them) and checks what each of their tests saw and how each ended.
 */
class FreshDatabaseTest {
  private static volatile boolean launching;

  /** What the fixtures saw, by test class: the database name in each test, set-ups, rows. */
  static final Map<Class<?>, List<String>> seen =
      Collections.synchronizedMap(new LinkedHashMap<>());

  static final AtomicInteger setUps = new AtomicInteger();
  static final AtomicInteger factoryCalls = new AtomicInteger();
  static final List<TestDatabase> databases = Collections.synchronizedList(new ArrayList<>());

  static boolean launching() {
    return launching;
  }

  @BeforeEach
  void forget() {
    seen.clear();
    setUps.set(0);
    factoryCalls.set(0);
    databases.clear();
  }

  @Test
  void each_test_class_gets_a_database_of_its_own_set_up_once_and_dropped_after_the_class()
      throws Exception {
    Results results = run(FirstClassFixture.class, SecondClassFixture.class);

    assertThat(results.outcomes.values()).hasSize(6).containsOnly("SUCCESSFUL");
    assertThat(setUps).as("one set-up per class").hasValue(2);
    List<String> first = seen.get(FirstClassFixture.class);
    List<String> second = seen.get(SecondClassFixture.class);
    assertThat(first).hasSize(3).containsOnly(first.get(0));
    assertThat(second).hasSize(3).containsOnly(second.get(0));
    assertThat(first.get(0)).isNotEqualTo(second.get(0)).contains("firstclassfixture");
    assertThat(databases).hasSize(2);
    for (TestDatabase db : databases) {
      assertThat(isClosed(db)).as("pool of %s closed", db).isTrue();
      assertThatThrownBy(
              () ->
                  DriverManager.getConnection(
                      "jdbc:h2:mem:" + db.name() + ";IFEXISTS=TRUE", "sa", ""))
          .as("%s dropped", db)
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("not found");
    }
  }

  @Test
  void each_run_of_a_parameterized_class_gets_a_database_of_its_own_dropped_after_the_run() {
    Results results = run(ParameterizedClassFixture.class);

    assertThat(results.classOutcome).isEqualTo("SUCCESSFUL");
    assertThat(results.outcomes.values()).hasSize(6).containsOnly("SUCCESSFUL");
    assertThat(setUps).as("one set-up per run").hasValue(2);
    List<String> seenByTests = seen.get(ParameterizedClassFixture.class);
    String first = databases.get(0).name();
    String second = databases.get(1).name();
    assertThat(seenByTests)
        .containsExactly(
            first + ", 0 closed",
            first + ", 0 closed",
            first + ", 0 closed",
            second + ", 1 closed",
            second + ", 1 closed",
            second + ", 1 closed");
    assertThat(databases).allSatisfy(db -> assertThat(isClosed(db)).isTrue());
  }

  @Test
  void a_failed_test_says_which_database_it_ran_on() {
    Results results = run(FailingTestFixture.class);

    assertThat(results.outcomes.values())
        .singleElement()
        .asString()
        .startsWith("FAILED: wrong (suppressed: the test ran on H2 okt_failingtestfixture_");
  }

  @Test
  void an_unavailable_database_aborts_each_test_with_the_reason_and_is_asked_for_once() {
    Results results = run(UnavailableFixture.class);

    assertThat(results.outcomes.values())
        .hasSize(3)
        .containsOnly("ABORTED: no FANCY server: set OUTBOXKIT_TEST_FANCY_URL");
    assertThat(results.classOutcome).isEqualTo("SUCCESSFUL");
    assertThat(factoryCalls).hasValue(1);
    assertThat(seen).isEmpty();
  }

  @Test
  void a_failed_set_up_fails_each_test_with_the_cause_and_closes_the_database() {
    Results results = run(FailingSetUpFixture.class);

    assertThat(results.outcomes.values())
        .hasSize(2)
        .containsOnly(
            "FAILED: the test class's database could not be set up"
                + " <- java.sql.SQLException: no such table");
    assertThat(setUps).hasValue(1);
    assertThat(seen).isEmpty();
    assertThat(databases).singleElement().satisfies(db -> assertThat(isClosed(db)).isTrue());
  }

  @Test
  void a_class_with_an_instance_per_test_is_refused() {
    Results results = run(PerMethodFixture.class);

    assertThat(results.outcomes.values())
        .singleElement()
        .asString()
        .startsWith("FAILED: FreshDatabase keeps one database per test class: annotate")
        .endsWith("with @TestInstance(TestInstance.Lifecycle.PER_CLASS)");
    assertThat(factoryCalls).hasValue(0);
  }

  @Test
  void there_is_no_database_before_the_first_test() {
    FreshDatabase database = FreshDatabase.of(() -> Flavor.H2);

    assertThatThrownBy(database::get)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("before the class's first test");
  }

  // ------------------------------------------------------------------------------------ fixtures

  /** Records the database name each test sees; each test adds a row the next must not find. */
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  @EnabledIf("dev.outboxkit.testkit.FreshDatabaseTest#launching")
  abstract static class RecordingFixture {
    @RegisterExtension
    final FreshDatabase database =
        FreshDatabase.of(() -> Flavor.H2)
            .setUp(this::createTable)
            .beforeEachTest("DELETE FROM note", "INSERT INTO note VALUES ('before each')");

    private void createTable(TestDatabase db) throws SQLException {
      setUps.incrementAndGet();
      databases.add(db);
      Sql.execute(db.dataSource(), "CREATE TABLE note (text VARCHAR(20))");
    }

    private void record() throws SQLException {
      assertThat(Sql.queryLong(database.get().dataSource(), "SELECT COUNT(*) FROM note"))
          .as("rows left by earlier tests")
          .isOne();
      Sql.execute(database.get().dataSource(), "INSERT INTO note VALUES ('left behind')");
      seen.computeIfAbsent(getClass(), c -> Collections.synchronizedList(new ArrayList<>()))
          .add(seenNow());
    }

    /** The database's name; a parameterized class also notes how many were closed by now. */
    String seenNow() {
      return database.get().name();
    }

    @Test
    void one() throws SQLException {
      record();
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void more(int n) throws SQLException {
      record();
    }
  }

  static class FirstClassFixture extends RecordingFixture {}

  static class SecondClassFixture extends RecordingFixture {}

  /** Two runs of the recording fixture's tests. */
  @ParameterizedClass
  @ValueSource(strings = {"first run", "second run"})
  static class ParameterizedClassFixture extends RecordingFixture {
    /** Unread: a parameterized class must take its argument. */
    @Parameter String run;

    @Override
    String seenNow() {
      return database.get().name()
          + ", "
          + databases.stream().filter(FreshDatabaseTest::isClosed).count()
          + " closed";
    }
  }

  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  @EnabledIf("dev.outboxkit.testkit.FreshDatabaseTest#launching")
  static class FailingTestFixture {
    @RegisterExtension final FreshDatabase database = FreshDatabase.of(() -> Flavor.H2);

    @Test
    void fails() {
      throw new AssertionError("wrong");
    }
  }

  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  @EnabledIf("dev.outboxkit.testkit.FreshDatabaseTest#launching")
  static class UnavailableFixture {
    @RegisterExtension
    final FreshDatabase database =
        FreshDatabase.from(
            name -> {
              factoryCalls.incrementAndGet();
              throw new TestAbortedException("no FANCY server: set OUTBOXKIT_TEST_FANCY_URL");
            });

    @Test
    void one() {
      seen.put(getClass(), List.of(database.get().name()));
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void more(int n) {
      seen.put(getClass(), List.of(database.get().name()));
    }
  }

  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  @EnabledIf("dev.outboxkit.testkit.FreshDatabaseTest#launching")
  static class FailingSetUpFixture {
    @RegisterExtension
    final FreshDatabase database =
        FreshDatabase.of(() -> Flavor.H2)
            .setUp(
                db -> {
                  setUps.incrementAndGet();
                  databases.add(db);
                  throw new SQLException("no such table");
                });

    @Test
    void one() {
      seen.put(getClass(), List.of(database.get().name()));
    }

    @Test
    void two() {
      seen.put(getClass(), List.of(database.get().name()));
    }
  }

  @EnabledIf("dev.outboxkit.testkit.FreshDatabaseTest#launching")
  static class PerMethodFixture {
    @RegisterExtension
    final FreshDatabase database =
        FreshDatabase.from(
            name -> {
              factoryCalls.incrementAndGet();
              return TestDatabases.create(Flavor.H2, name);
            });

    @Test
    void one() {}
  }

  // ------------------------------------------------------------------------------------- running

  /** How each test ended ("SUCCESSFUL", "ABORTED: reason", "FAILED: message <- cause"). */
  private static final class Results implements TestExecutionListener {
    final Map<String, String> outcomes = Collections.synchronizedMap(new LinkedHashMap<>());
    volatile String classOutcome;

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
      String outcome = result.getStatus().toString();
      Throwable t = result.getThrowable().orElse(null);
      if (t != null) {
        outcome += ": " + t.getMessage();
        if (t.getCause() != null) {
          outcome += " <- " + t.getCause();
        }
        for (Throwable note : t.getSuppressed()) {
          outcome += " (suppressed: " + note.getMessage() + ")";
        }
      }
      if (id.isTest()) {
        outcomes.put(id.getUniqueId(), outcome);
      } else if (id.getSource().filter(ClassSource.class::isInstance).isPresent()) {
        classOutcome = outcome;
      }
    }
  }

  private static boolean isClosed(TestDatabase db) {
    return ((HikariDataSource) db.dataSource()).isClosed();
  }

  private static Results run(Class<?>... fixtures) {
    Results results = new Results();
    LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
    for (Class<?> fixture : fixtures) {
      request.selectors(selectClass(fixture));
    }
    launching = true;
    try {
      LauncherFactory.create().execute(request.build(), results);
    } finally {
      launching = false;
    }
    return results;
  }
}
