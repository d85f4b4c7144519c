package dev.outboxkit.jdbc.internal;

/**
 * Which of the two ordered claims to run while heads are scarce, by what each cost lately. Both
 * claim the same heads. The scanning claim walks the PENDING index and reads every pending event
 * behind a held head; the sparse one walks the aggregate index, one step per aggregate with an
 * unfinished event. Usually the sparse one is cheaper. But while vacuum cannot remove old row
 * versions (a long transaction elsewhere holds the horizon back), every finished event leaves two
 * entries in the aggregate index that each step must check in the table, and the sparse claim took
 * 1.3 s on PostgreSQL where the scanning one took 20 ms.
 *
 * <p>So the cheaper one runs (its time a moving average, the other's time that of its last try),
 * and the other is tried again once the time spent since its last try reaches {@value
 * #TRY_OTHER_AFTER} times its own cost: about a twentieth of the claiming time goes to finding out
 * that it got cheaper, and a try that stalls the relay as long as it takes comes rarely. The first
 * scarce claim is the sparse one, as before this class, unless the scanning one was measured
 * already (a scanning claim that came back short is what made heads scarce, and counts as a try);
 * the other runs next, so each is measured once.
 */
final class OrderedClaimChoice {
  static final int TRY_OTHER_AFTER = 20;

  // Nanoseconds, 0 until measured. Written by whichever thread claimed; a lost update only delays
  // the choice by a claim.
  private volatile long sparseCost;
  private volatile long scanCost;
  private volatile long spentSinceOtherTried;

  /** {@return whether the next scarce claim should be the sparse one} */
  boolean sparse() {
    long sparse = sparseCost;
    long scan = scanCost;
    if (sparse == 0 || scan == 0) {
      return sparse == 0; // each measured once, the sparse one first
    }
    boolean sparseCheaper = sparse <= scan;
    boolean tryOther = spentSinceOtherTried >= TRY_OTHER_AFTER * (sparseCheaper ? scan : sparse);
    return sparseCheaper != tryOther;
  }

  /** Records the time a scarce claim took. */
  void took(boolean sparse, long nanos) {
    long sparseNow = sparseCost;
    long scanNow = scanCost;
    boolean preferred =
        sparse
            ? scanNow == 0 || sparseNow <= scanNow
            : sparseNow != 0 && scanNow != 0 && scanNow < sparseNow;
    // The claim run most is averaged; a try of the other, rare, is taken as it came.
    if (sparse) {
      sparseCost = preferred ? average(sparseNow, nanos) : Math.max(1, nanos);
    } else {
      scanCost = preferred ? average(scanNow, nanos) : Math.max(1, nanos);
    }
    spentSinceOtherTried = preferred ? spentSinceOtherTried + nanos : 0;
  }

  private static long average(long previous, long nanos) {
    long n = Math.max(1, nanos);
    return previous == 0 ? n : previous + (n - previous) / 4;
  }
}
