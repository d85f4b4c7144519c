package dev.outboxkit.kafka.internal;

import static java.nio.charset.StandardCharsets.UTF_8;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The size a record takes on the broker when it travels alone in an uncompressed batch: what the
 * broker compares with the topic's {@code max.message.bytes}. The producer splits a batch the
 * broker refuses as too large, down to one record per batch, so a record is refused for its size
 * only when this figure exceeds the limit (without compression).
 *
 * <p>Computed from the record format (magic v2, KIP-98) rather than from kafka-clients' internal
 * classes, which move between versions: a batch header of {@value #BATCH_OVERHEAD} bytes, then the
 * record: a varint length, one attribute byte, the timestamp delta and offset delta (zero for the
 * first record of a batch: one byte each), key and value each as a varint length and the bytes, and
 * the headers as a varint count, then each name and value as a varint length and the bytes.
 */
final class RecordSize {
  /** Bytes of a v2 record batch before its first record. */
  static final int BATCH_OVERHEAD = 61;

  private RecordSize() {}

  /**
   * The bytes of a batch holding only this record, uncompressed; the key is serialized as UTF-8, as
   * the transport's {@code StringSerializer} does.
   */
  static long ofBatchOfOne(ProducerRecord<String, byte[]> record) {
    long body = 1 + sizeOfVarlong(0) + sizeOfVarint(0);
    body += field(record.key() == null ? -1 : record.key().getBytes(UTF_8).length);
    body += field(record.value() == null ? -1 : record.value().length);
    Header[] headers = record.headers().toArray();
    body += sizeOfVarint(headers.length);
    for (Header h : headers) {
      body += field(h.key().getBytes(UTF_8).length);
      body += field(h.value() == null ? -1 : h.value().length);
    }
    return BATCH_OVERHEAD + sizeOfVarint((int) Math.min(body, Integer.MAX_VALUE)) + body;
  }

  /** A length-prefixed field: the varint of its length, then its bytes (-1 for null: none). */
  private static long field(int length) {
    return sizeOfVarint(length) + (long) Math.max(length, 0);
  }

  /** Bytes of a zig-zag varint, as Kafka writes lengths and deltas. */
  static int sizeOfVarint(int value) {
    return sizeOfUnsigned((value << 1) ^ (value >> 31));
  }

  private static int sizeOfVarlong(long value) {
    long v = (value << 1) ^ (value >> 63);
    int bytes = 1;
    while ((v & 0xffffffffffffff80L) != 0L) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }

  private static int sizeOfUnsigned(int v) {
    int bytes = 1;
    while ((v & 0xffffff80) != 0) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }
}
