/** Internals of the Debezium transformation. Not exported; may change in any release. */
package dev.outboxkit.debezium.internal;
