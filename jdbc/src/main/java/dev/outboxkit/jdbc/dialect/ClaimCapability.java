package dev.outboxkit.jdbc.dialect;

/**
 * How a database lets several relays claim rows at once without taking the same row twice. The
 * relay picks its claim by this capability, never by vendor; each needs its own statements (see
 * {@link SqlDialect}).
 */
@Beta
public enum ClaimCapability {
  /**
   * One statement locks, marks and returns the rows: {@code UPDATE … RETURNING} (or {@code OUTPUT})
   * over a {@code SELECT … FOR UPDATE SKIP LOCKED}. One round trip per claim. Statements: {@code
   * claimUnordered}, {@code claimOrdered}; optional {@code claimOrderedSparse}, {@code beforeClaim}
   * and {@code beforeSparseClaim} (settings for the claim's transaction), and {@code claimFloor}
   * with a {@code :floor} parameter in the first two (where their walk of the PENDING index may
   * start).
   */
  RETURNING,

  /**
   * A plain read of candidates, a locking read that skips rows other relays hold ({@code SKIP
   * LOCKED}, {@code READPAST}), then an update that marks them. Three round trips; relays never
   * wait on each other. Statements: {@code lockUnordered}, {@code orderedCandidates}, {@code
   * orderedCandidatesInWindow}, {@code lockCandidates}.
   */
  SKIP_LOCKED,

  /**
   * For a database without {@code SKIP LOCKED}: a plain read of candidates, then an {@code UPDATE …
   * WHERE status = 'PENDING'} whose row count decides what was claimed, then a read of the rows
   * marked. A relay that meets a row another relay is claiming waits for that short transaction and
   * then finds the row taken, so concurrent relays serialise on overlapping candidates: the same
   * guarantees, less throughput with many relays. Statements: {@code unorderedCandidates}, {@code
   * orderedCandidates}, {@code orderedCandidatesInWindow}, {@code markClaimedIfDue}, {@code
   * readClaimed}.
   */
  CONDITIONAL_UPDATE
}
