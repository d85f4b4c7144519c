/**
 * Internals of OutboxKit (the relay's cycle, its SQL dialects and statements, the writer's
 * encoding). Not API: nothing here is supported for use outside OutboxKit's own modules, and it
 * changes without notice. The module descriptor does not export it.
 */
package dev.outboxkit.jdbc.internal;
