/** Internals of the JMS transport. Not exported; may change in any release. */
package dev.outboxkit.jms.internal;
