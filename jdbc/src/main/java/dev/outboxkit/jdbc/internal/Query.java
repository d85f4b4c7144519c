package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * One prepared {@link Statement}, bound by parameter name: the only way OutboxKit binds a
 * statement, so a dialect's text may order its parameters as its database needs. Binding a name the
 * statement does not declare is a programming error; a name the dialect's text leaves out (one it
 * {@linkplain Statement#mayOmit may}) binds nothing.
 */
final class Query implements AutoCloseable {
  /**
   * Most values one list parameter is given: Oracle refuses more than 1,000 in an {@code IN} list,
   * SQL Server more than 2,100 parameters in a statement. Callers split longer lists.
   */
  public static final int MAX_LIST = 1000;

  private final Statement statement;
  private final CompiledDialect dialect;
  private final NamedSql.Rendered rendered;
  private final PreparedStatement ps;
  private final int partSize;
  private int offset;

  private Query(
      Statement statement,
      CompiledDialect dialect,
      NamedSql.Rendered rendered,
      PreparedStatement ps,
      int partSize) {
    this.statement = statement;
    this.dialect = dialect;
    this.rendered = rendered;
    this.ps = ps;
    this.partSize = partSize;
  }

  /** Prepares a statement without a list parameter. */
  public static Query prepare(Connection c, OutboxSql s, Statement st) throws SQLException {
    NamedSql.Rendered r = s.rendered(st);
    return new Query(st, s.dialect(), r, prepare(c, s, st, r.sql), r.parameterCount);
  }

  /** Prepares a statement whose list parameter has {@code size} values. */
  public static Query prepare(Connection c, OutboxSql s, Statement st, int size)
      throws SQLException {
    NamedSql.Rendered r = s.rendered(st, size);
    return new Query(st, s.dialect(), r, prepare(c, s, st, r.sql), r.parameterCount);
  }

  /**
   * Prepares {@code parts} copies of a statement joined by {@code UNION ALL}; {@link #part} picks
   * the copy the next bindings go to.
   */
  public static Query union(Connection c, OutboxSql s, Statement st, int parts)
      throws SQLException {
    NamedSql.Rendered r = s.rendered(st);
    StringBuilder sql = new StringBuilder(r.sql.length() * parts + 16 * parts);
    for (int i = 0; i < parts; i++) {
      sql.append(i == 0 ? "" : "\nUNION ALL\n").append(r.sql);
    }
    return new Query(st, s.dialect(), r, prepare(c, s, st, sql.toString()), r.parameterCount);
  }

  private static PreparedStatement prepare(Connection c, OutboxSql s, Statement st, String sql)
      throws SQLException {
    try {
      return c.prepareStatement(sql);
    } catch (SQLException e) {
      throw refused(s.dialect(), st, e);
    }
  }

  /** The copy of a {@link #union} the next bindings go to, from 0. */
  public Query part(int part) {
    this.offset = part * partSize;
    return this;
  }

  private int[] at(String name) {
    if (!statement.params().contains(name)) {
      throw new IllegalArgumentException(statement.name() + " has no parameter :" + name);
    }
    return rendered.positions(name);
  }

  /** {@return whether the dialect's text takes this parameter (one it may omit, if not)} */
  public boolean takes(String name) {
    return at(name).length > 0;
  }

  public Query setLong(String name, long value) throws SQLException {
    for (int i : at(name)) {
      ps.setLong(offset + i, value);
    }
    return this;
  }

  /** Binds a value that may be absent: SQL NULL when it is. */
  public Query setLong(String name, OptionalLong value) throws SQLException {
    for (int i : at(name)) {
      if (value.isPresent()) {
        ps.setLong(offset + i, value.getAsLong());
      } else {
        ps.setNull(offset + i, Types.BIGINT);
      }
    }
    return this;
  }

  public Query setInt(String name, int value) throws SQLException {
    for (int i : at(name)) {
      ps.setInt(offset + i, value);
    }
    return this;
  }

  public Query setString(String name, String value) throws SQLException {
    for (int i : at(name)) {
      ps.setString(offset + i, value);
    }
    return this;
  }

  public Query setBytes(String name, byte[] value) throws SQLException {
    for (int i : at(name)) {
      ps.setBytes(offset + i, value);
    }
    return this;
  }

  public Query setUuid(String name, UUID value) throws SQLException {
    for (int i : at(name)) {
      dialect.setUuid(ps, offset + i, value);
    }
    return this;
  }

  public Query setInstant(String name, Instant value) throws SQLException {
    for (int i : at(name)) {
      dialect.setInstant(ps, offset + i, value);
    }
    return this;
  }

  /** Binds the list parameter's values, as many as it was prepared for. */
  public Query setSeqs(String name, List<Long> seqs) throws SQLException {
    for (int i : at(name)) {
      for (int v = 0; v < seqs.size(); v++) {
        ps.setLong(offset + i + v, seqs.get(v));
      }
    }
    return this;
  }

  /**
   * Caps the rows read at {@code limit}, for a statement whose text may leave its {@code :limit}
   * out (a database that limits a locking read only by how far it is fetched).
   */
  public Query maxRows(int limit) throws SQLException {
    ps.setMaxRows(limit);
    ps.setFetchSize(limit);
    return this;
  }

  public ResultSet executeQuery() throws SQLException {
    try {
      return ps.executeQuery();
    } catch (SQLException e) {
      throw refused(dialect, statement, e);
    }
  }

  public int executeUpdate() throws SQLException {
    try {
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw refused(dialect, statement, e);
    }
  }

  /**
   * A claim statement the database refused as written (SQL state class 42): most likely the dialect
   * names a claim capability the database lacks, which its message says; state and code are kept.
   */
  private static SQLException refused(
      CompiledDialect dialect, Statement statement, SQLException e) {
    String state = e.getSQLState();
    if (statement.capabilities().isEmpty()
        || state == null
        || !state.startsWith("42")
        || TableCheck.missingTableOrColumn(e)) {
      return e; // a missing table or column is the table check's to explain
    }
    return new SQLException(
        "dialect "
            + dialect.name()
            + ": the database refused statement "
            + statement.name()
            + " of claim capability "
            + dialect.dialect().claimCapability()
            + " ("
            + e.getMessage()
            + "). If the database lacks what that capability needs ("
            + needs(dialect.dialect().claimCapability())
            + "), build the dialect with claim(ClaimCapability.CONDITIONAL_UPDATE), which needs"
            + " neither; else correct the statement",
        state,
        e.getErrorCode(),
        e);
  }

  private static String needs(ClaimCapability capability) {
    switch (capability) {
      case RETURNING:
        return "UPDATE ... RETURNING over SELECT ... FOR UPDATE SKIP LOCKED";
      case SKIP_LOCKED:
        return "SELECT ... FOR UPDATE SKIP LOCKED";
      default:
        return "a row limit and a conditional UPDATE";
    }
  }

  public boolean execute() throws SQLException {
    return ps.execute();
  }

  public void addBatch() throws SQLException {
    ps.addBatch();
  }

  public int[] executeBatch() throws SQLException {
    return ps.executeBatch();
  }

  @Override
  public void close() throws SQLException {
    ps.close();
  }
}
