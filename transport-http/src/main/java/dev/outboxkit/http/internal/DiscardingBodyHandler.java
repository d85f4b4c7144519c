package dev.outboxkit.http.internal;

import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * Reads and throws away at most a small number of response-body bytes.
 *
 * <p>The response is complete as soon as its status line and headers arrived: the request timeout
 * covers only that part, so waiting for the body would let an endpoint that sends headers and then
 * stalls hold a batch forever. The body is drained in the background so a short answer frees the
 * connection for reuse; a long one is cut off (the connection is then closed). The bytes are never
 * kept or logged: an endpoint's answer may echo the payload or carry its own secrets.
 */
final class DiscardingBodyHandler implements BodyHandler<Void> {
  private final long limit;

  /**
   * @param limit bytes read before the body is abandoned
   */
  public DiscardingBodyHandler(long limit) {
    this.limit = limit;
  }

  @Override
  public BodySubscriber<Void> apply(ResponseInfo responseInfo) {
    return new Drain(limit);
  }

  private static final class Drain implements BodySubscriber<Void> {
    private final long limit;
    private final CompletableFuture<Void> body = CompletableFuture.completedFuture(null);
    private Flow.Subscription subscription;
    private long seen;

    Drain(long limit) {
      this.limit = limit;
    }

    @Override
    public CompletionStage<Void> getBody() {
      return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      for (ByteBuffer b : items) {
        seen += b.remaining();
      }
      if (seen > limit) {
        subscription.cancel();
      } else {
        subscription.request(1);
      }
    }

    @Override
    public void onError(Throwable throwable) {
      // Nothing to do: the status was already taken, the body is not wanted.
    }

    @Override
    public void onComplete() {
      // Nothing to do: see onError.
    }
  }
}
