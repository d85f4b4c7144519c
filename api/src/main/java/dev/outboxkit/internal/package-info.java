/**
 * Internals of OutboxKit (event validation shared by the API's builders). Not API: nothing here is
 * supported for use outside OutboxKit's own modules, and it changes without notice. The module
 * descriptor does not export it.
 */
package dev.outboxkit.internal;
