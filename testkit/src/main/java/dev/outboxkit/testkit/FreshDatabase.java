package dev.outboxkit.testkit;

import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * A JUnit 5 extension that gives a test class a fresh database of its own on a real server, and
 * closes it (the pool shut, the database dropped) once the class is done. It is registered with
 * {@link RegisterExtension} on an instance field of a {@code @TestInstance(PER_CLASS)} class, so it
 * can ask the instance which flavour to use; the pattern is a contract class run once per flavour,
 * each run with a database of its own (JUnit keeps one test instance for all the runs):
 *
 * <pre>{@code
 * @TestInstance(TestInstance.Lifecycle.PER_CLASS)
 * @ParameterizedClass(name = "{0}", allowZeroInvocations = true)
 * @MethodSource("flavors")
 * class RelayContractTest {
 *   @Parameter Flavor flavor;
 *
 *   @RegisterExtension
 *   final FreshDatabase database =
 *       FreshDatabase.of(() -> flavor)
 *           .setUp(this::createTables)               // once per run, on its fresh database
 *           .beforeEachTest("DELETE FROM outbox_event");
 *
 *   static List<Flavor> flavors() { return TestFlavors.all(); }
 * }
 * }</pre>
 *
 * <p>The database is made just before the class's (or the run's) first test, ahead of its
 * {@code @BeforeEach} methods; {@code @BeforeAll} methods run before it exists (JUnit calls an
 * instance field's extension only around each test, never around the class). When no database can
 * be had, every test of the class is aborted with the reason, each on its own: aborting the class
 * as a whole would make Surefire report "0 tests" instead of how many were skipped and why.
 *
 * <p>Configuration methods return a new extension; register the last one.
 */
public final class FreshDatabase implements BeforeEachCallback, TestExecutionExceptionHandler {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(FreshDatabase.class);

  /**
   * Makes the class's database; may abort (as {@link TestDatabases#create} does) if none can be.
   */
  @FunctionalInterface
  public interface Factory {
    /**
     * A fresh, empty database.
     *
     * @param name readable part of its name: the test class's simple name
     */
    TestDatabase create(String name) throws Exception;
  }

  /** Prepares the class's fresh database once (tables, fields of the test instance). */
  @FunctionalInterface
  public interface SetUp {
    /** Called once, before the class's first test, with the class's new database. */
    void accept(TestDatabase database) throws Exception;
  }

  private final Factory factory;
  private final SetUp setUp;
  private final List<String> beforeEachTest;
  private Outcome outcome;

  private FreshDatabase(Factory factory, SetUp setUp, List<String> beforeEachTest) {
    this.factory = factory;
    this.setUp = setUp;
    this.beforeEachTest = beforeEachTest;
  }

  /**
   * A database of the flavour the supplier names, on the shared server {@link TestDatabases} finds
   * for it. The supplier is asked before the first test of each run, not now: in a field
   * initializer it reads the flavour JUnit injects later.
   */
  public static FreshDatabase of(Supplier<Flavor> flavor) {
    return from(name -> TestDatabases.create(flavor.get(), name));
  }

  /** A database made by this factory, e.g. on a server the test class runs for itself. */
  public static FreshDatabase from(Factory factory) {
    return new FreshDatabase(factory, database -> {}, List.of());
  }

  /**
   * This extension with a set-up run once on the fresh database, before the class's first test: the
   * caller's schema (the test kit cannot call the modules' code), fields the tests read. If it
   * fails, the database is closed and every test of the class fails with the cause.
   */
  public FreshDatabase setUp(SetUp setUp) {
    return new FreshDatabase(factory, setUp, beforeEachTest);
  }

  /**
   * This extension with statements run before every test, in order, each in its own transaction,
   * typically emptying the tables the tests write.
   */
  public FreshDatabase beforeEachTest(String... statements) {
    return new FreshDatabase(factory, setUp, List.of(statements));
  }

  /** The class's database; there is none before the first test's {@code @BeforeEach} methods. */
  public TestDatabase get() {
    if (outcome == null || outcome.database == null) {
      throw new IllegalStateException(
          "no database yet: FreshDatabase makes it before the class's first test, after any"
              + " @BeforeAll method");
    }
    return outcome.database;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    // A parameterized class keeps one test instance for all its runs: the database is the run's.
    ExtensionContext testClass = classOf(context);
    ExtensionContext.Store store = testClass.getStore(NAMESPACE);
    outcome = store.get(this, Outcome.class);
    if (outcome == null) {
      outcome = create(testClass);
      // Closed with the class's (or run's) context, once its last test and after-methods are done.
      store.put(this, outcome);
    }
    Sql.execute(outcome.usable().dataSource(), beforeEachTest.toArray(new String[0]));
  }

  /**
   * Adds to a failure which database the test ran on: Surefire's report numbers the runs of a
   * parameterized class ({@code RelayContractTest[2]}) rather than naming their flavours.
   */
  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure)
      throws Throwable {
    if (outcome != null && outcome.database != null && !(failure instanceof TestAbortedException)) {
      failure.addSuppressed(new RanOn(outcome.database));
    }
    throw failure;
  }

  private Outcome create(ExtensionContext testClass) {
    if (testClass.getTestInstanceLifecycle().orElse(null) != TestInstance.Lifecycle.PER_CLASS) {
      // Per method, each test would make a database of its own, none dropped before the class ends.
      throw new IllegalStateException(
          "FreshDatabase keeps one database per test class: annotate "
              + testClass.getRequiredTestClass().getName()
              + " with @TestInstance(TestInstance.Lifecycle.PER_CLASS)");
    }
    TestDatabase database;
    try {
      database = factory.create(testClass.getRequiredTestClass().getSimpleName());
    } catch (TestAbortedException e) {
      return Outcome.unavailable(e.getMessage());
    } catch (Exception e) {
      return Outcome.failed(e);
    }
    try {
      setUp.accept(database);
      return Outcome.ready(database);
    } catch (TestAbortedException e) {
      database.close();
      return Outcome.unavailable(e.getMessage());
    } catch (Exception e) {
      database.close();
      return Outcome.failed(e);
    }
  }

  /**
   * The context of the test class (of one run of a parameterized class): above the method's and a
   * parameterized test's container.
   */
  private static ExtensionContext classOf(ExtensionContext context) {
    ExtensionContext c = context;
    while (c.getTestMethod().isPresent()) {
      c = c.getParent().orElseThrow();
    }
    return c;
  }

  /** Not an error: the note on a failure that names the database, without a stack trace. */
  private static final class RanOn extends Exception {
    private static final long serialVersionUID = 1L;

    RanOn(TestDatabase database) {
      super("the test ran on " + database, null, false, false);
    }
  }

  /** What became of the class's database: made and set up, not to be had, or failed. */
  private static final class Outcome implements AutoCloseable {
    final TestDatabase database;
    final String unavailable;
    final Exception failure;

    private Outcome(TestDatabase database, String unavailable, Exception failure) {
      this.database = database;
      this.unavailable = unavailable;
      this.failure = failure;
    }

    static Outcome ready(TestDatabase database) {
      return new Outcome(database, null, null);
    }

    static Outcome unavailable(String reason) {
      return new Outcome(null, reason, null);
    }

    static Outcome failed(Exception failure) {
      return new Outcome(null, null, failure);
    }

    /** The database, else the test aborted with the reason or failed with the cause. */
    TestDatabase usable() {
      if (unavailable != null) {
        Assumptions.abort(unavailable);
      }
      if (failure != null) {
        throw new IllegalStateException("the test class's database could not be set up", failure);
      }
      return database;
    }

    @Override
    public void close() {
      if (database != null) {
        database.close();
      }
    }
  }
}
