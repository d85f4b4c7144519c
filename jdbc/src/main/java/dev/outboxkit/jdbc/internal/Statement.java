package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One statement OutboxKit runs: its name (the {@code -- name:} of the statement files), the named
 * parameters it is bound with, the columns it returns, and when a dialect must have it. The text
 * comes from the dialect; this object is what every dialect's text is checked against, so an
 * override cannot take other parameters than the statement it replaces. The catalogue of all of
 * them is {@link Statements}.
 */
final class Statement {
  /** When a dialect must define a statement. */
  enum Need {
    /** Every dialect. */
    ALWAYS,
    /** A step a dialect may leave out. */
    OPTIONAL,
    /** Dialects claiming with one of {@link #capabilities}. */
    CLAIM,
    /** Optional, for dialects claiming with one of {@link #capabilities}. */
    CLAIM_OPTIONAL
  }

  private final String name;
  private final Need need;
  private final Set<ClaimCapability> capabilities;
  private final Set<String> params;
  private final Set<String> mayOmit;
  private final String listParam;
  private final List<String> columns;

  private Statement(
      String name,
      Need need,
      Set<ClaimCapability> capabilities,
      Set<String> params,
      Set<String> mayOmit,
      String listParam,
      List<String> columns) {
    this.name = name;
    this.need = need;
    this.capabilities = capabilities;
    this.params = params;
    this.mayOmit = mayOmit;
    this.listParam = listParam;
    this.columns = columns;
  }

  /** A statement every dialect has. */
  static Statement always(String name, String... params) {
    return new Statement(name, Need.ALWAYS, Set.of(), set(params), Set.of(), null, List.of());
  }

  /** A step a dialect may leave out. */
  static Statement optional(String name, String... params) {
    return new Statement(name, Need.OPTIONAL, Set.of(), set(params), Set.of(), null, List.of());
  }

  /** A statement of one claim capability. */
  static Statement claim(Set<ClaimCapability> capabilities, String name, String... params) {
    return new Statement(name, Need.CLAIM, capabilities, set(params), Set.of(), null, List.of());
  }

  /** An optional statement of one claim capability. */
  static Statement claimOptional(Set<ClaimCapability> capabilities, String name, String... params) {
    return new Statement(
        name, Need.CLAIM_OPTIONAL, capabilities, set(params), Set.of(), null, List.of());
  }

  /** This statement, with {@code name} bound to a list of values (an {@code IN (:name)}). */
  Statement list(String param) {
    require(param);
    return new Statement(name, need, capabilities, params, mayOmit, param, columns);
  }

  /** This statement, returning these columns (by label, in any order). */
  Statement columns(List<String> first, String... more) {
    List<String> all = new java.util.ArrayList<>(first);
    all.addAll(Arrays.asList(more));
    return new Statement(
        name, need, capabilities, params, mayOmit, listParam, Collections.unmodifiableList(all));
  }

  /** This statement, returning these columns. */
  Statement columns(String... columns) {
    return columns(List.of(), columns);
  }

  /**
   * This statement, where a dialect's text may leave out {@code param}: the engine enforces what it
   * says in another way (a row limit through {@code setMaxRows}, say).
   */
  Statement mayOmit(String param) {
    require(param);
    Set<String> omit = new LinkedHashSet<>(mayOmit);
    omit.add(param);
    return new Statement(
        name, need, capabilities, params, Collections.unmodifiableSet(omit), listParam, columns);
  }

  private void require(String param) {
    if (!params.contains(param)) {
      throw new IllegalArgumentException(name + " has no parameter " + param);
    }
  }

  private static Set<String> set(String... params) {
    return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(params)));
  }

  /** The name in the statement files. */
  public String name() {
    return name;
  }

  Need need() {
    return need;
  }

  /** The claim capabilities that run this statement; empty for a statement of every dialect. */
  public Set<ClaimCapability> capabilities() {
    return capabilities;
  }

  /** The named parameters, in the order the shipped text uses them. */
  public Set<String> params() {
    return params;
  }

  /** The parameters a dialect's text may leave out. */
  public Set<String> mayOmit() {
    return mayOmit;
  }

  /** The list parameter, or null. */
  public String listParam() {
    return listParam;
  }

  /** The result columns' labels; empty for a statement that returns no rows. */
  public List<String> columns() {
    return columns;
  }

  /** Whether a dialect claiming with {@code claim} must define this statement. */
  boolean requiredFor(ClaimCapability claim) {
    return need == Need.ALWAYS || (need == Need.CLAIM && capabilities.contains(claim));
  }

  /** Whether a dialect claiming with {@code claim} runs this statement at all. */
  boolean usedBy(ClaimCapability claim) {
    return capabilities.isEmpty() || capabilities.contains(claim);
  }

  @Override
  public String toString() {
    return name;
  }
}
