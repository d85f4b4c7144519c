/** OutboxKit's event model and transport SPI. Depends on nothing but the JDK. */
module dev.outboxkit.api {
  exports dev.outboxkit;
}
