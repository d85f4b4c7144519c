/** Implementation details of the Micrometer binding; not an API. */
package dev.outboxkit.micrometer.internal;
