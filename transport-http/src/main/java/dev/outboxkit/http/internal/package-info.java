/**
 * Internals of OutboxKit (the webhook transport's scheduler, request building, destination guard
 * and answer classification). Not API: nothing here is supported for use outside OutboxKit's own
 * modules, and it changes without notice. The module descriptor does not export it.
 */
package dev.outboxkit.http.internal;
