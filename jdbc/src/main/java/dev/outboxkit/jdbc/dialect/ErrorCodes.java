package dev.outboxkit.jdbc.dialect;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which of a database's errors mean what to OutboxKit. Immutable; each method returns a copy with
 * more codes. An error matches a kind when its SQL state or its vendor code is one listed for that
 * kind, on the exception itself or any {@link SQLException} among its causes.
 */
@Beta
public final class ErrorCodes {
  /** What an error means to OutboxKit. */
  public enum Kind {
    /**
     * The database chose this transaction as a deadlock victim (or a serialization failure) and
     * rolled it back whole: a relay transaction is run again.
     */
    DEADLOCK,
    /** A lock wait ran out; the relay runs its transaction again, like after a deadlock. */
    LOCK_TIMEOUT,
    /**
     * The connection is gone or unusable (beyond SQL state class {@code 08}, which always counts):
     * it is aborted, never handed back to a pool as usable.
     */
    LOST_CONNECTION,
    /** A DDL statement found its table or index already there: schema creation skips it. */
    ALREADY_EXISTS,
    /**
     * The inbox's insert found its (consumer, event id) taken by a concurrent insert: the event was
     * processed, so the inbox answers "duplicate". Only for databases where such a failure leaves
     * the caller's transaction usable (not PostgreSQL, whose inbox insert never fails so).
     */
    DUPLICATE_KEY
  }

  private static final ErrorCodes NONE =
      new ErrorCodes(new EnumMap<>(Kind.class), new EnumMap<>(Kind.class));

  private final Map<Kind, Set<String>> states;
  private final Map<Kind, Set<Integer>> vendorCodes;

  private ErrorCodes(Map<Kind, Set<String>> states, Map<Kind, Set<Integer>> vendorCodes) {
    this.states = states;
    this.vendorCodes = vendorCodes;
  }

  /** {@return no codes at all} */
  public static ErrorCodes none() {
    return NONE;
  }

  /**
   * {@return these codes and the given SQL states for a kind}
   *
   * @param kind what the states mean
   * @param sqlStates five-character SQL states, matched exactly
   */
  public ErrorCodes sqlStates(Kind kind, String... sqlStates) {
    Map<Kind, Set<String>> copy = copy(states);
    Set<String> set = new HashSet<>(copy.getOrDefault(kind, Collections.emptySet()));
    set.addAll(Arrays.asList(sqlStates));
    copy.put(kind, Collections.unmodifiableSet(set));
    return new ErrorCodes(copy, vendorCodes);
  }

  /**
   * {@return these codes and the given vendor codes for a kind}
   *
   * @param kind what the codes mean
   * @param codes values of {@link SQLException#getErrorCode()}
   */
  public ErrorCodes vendorCodes(Kind kind, int... codes) {
    Map<Kind, Set<Integer>> copy = copy(vendorCodes);
    Set<Integer> set = new HashSet<>(copy.getOrDefault(kind, Collections.emptySet()));
    for (int code : codes) {
      set.add(code);
    }
    copy.put(kind, Collections.unmodifiableSet(set));
    return new ErrorCodes(states, copy);
  }

  /**
   * {@return whether the error, or an {@link SQLException} among its causes, is of that kind}
   *
   * @param kind the kind asked about
   * @param error the error
   */
  public boolean is(Kind kind, SQLException error) {
    Set<String> s = states.getOrDefault(kind, Collections.emptySet());
    Set<Integer> v = vendorCodes.getOrDefault(kind, Collections.emptySet());
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof SQLException) {
        SQLException e = (SQLException) t;
        if ((e.getSQLState() != null && s.contains(e.getSQLState()))
            || (e.getErrorCode() != 0 && v.contains(e.getErrorCode()))) {
          return true;
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  private static <T> Map<Kind, Set<T>> copy(Map<Kind, Set<T>> map) {
    Map<Kind, Set<T>> copy = new EnumMap<>(Kind.class);
    copy.putAll(map);
    return copy;
  }

  @Override
  public String toString() {
    return "ErrorCodes{states=" + states + ", vendorCodes=" + vendorCodes + "}";
  }
}
