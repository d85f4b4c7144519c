package dev.outboxkit.jdbc.dialect;

/** How a database stores the event id ({@link java.util.UUID}), and so how it is bound and read. */
@Beta
public enum IdColumn {
  /** A native UUID type: {@code setObject(UUID)}, {@code getObject(UUID.class)}. */
  UUID,
  /** Text of 36 characters: {@code setString}, {@code getString}. */
  TEXT,
  /** 16 bytes, most significant first: {@code setBytes}, {@code getBytes}. */
  BYTES
}
