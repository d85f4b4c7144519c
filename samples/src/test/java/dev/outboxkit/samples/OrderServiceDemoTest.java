package dev.outboxkit.samples;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OrderServiceDemoTest {
  @Test
  void the_demo_publishes_every_committed_order_and_nothing_of_the_rolled_back_one()
      throws Exception {
    assertThat(OrderServiceDemo.run()).isZero();
  }
}
