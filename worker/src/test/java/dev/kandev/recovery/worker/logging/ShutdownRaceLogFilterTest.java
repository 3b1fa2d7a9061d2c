package dev.kandev.recovery.worker.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ShutdownRaceLogFilterTest {
  private final LoggerContext context = new LoggerContext();
  private final ListAppender<ILoggingEvent> events = new ListAppender<>();

  @BeforeEach
  void setUp() {
    ShutdownRaceLogFilter filter = new ShutdownRaceLogFilter();
    filter.start();
    context.addTurboFilter(filter);
    events.setContext(context);
    events.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.DEBUG);
    root.addAppender(events);
  }

  @Test
  void theSdksRejectionByAnExecutorThatIsShuttingDownIsOneDebugLineWithoutAStackTrace() throws Exception {
    RejectedExecutionException rejected = rejectedWhileShuttingDown();

    context.getLogger("io.temporal.internal.worker.PollerOptions").error("uncaught exception", rejected);

    assertThat(events.list).singleElement().satisfies(event -> {
      assertThat(event.getLevel()).isEqualTo(Level.DEBUG);
      assertThat(event.getThrowableProxy()).isNull();
      assertThat(event.getFormattedMessage()).startsWith("uncaught exception at shutdown").contains("Shutting down");
    });
  }

  @Test
  void aRejectionByARunningExecutorStaysAnError() throws Exception {
    RejectedExecutionException rejected = rejectedWhileRunning();

    context.getLogger("io.temporal.internal.worker.PollerOptions").error("uncaught exception", rejected);

    assertThat(events.list).singleElement().satisfies(event -> {
      assertThat(event.getLevel()).isEqualTo(Level.ERROR);
      assertThat(event.getThrowableProxy()).isNotNull();
    });
  }

  @Test
  void ourOwnRejectionsAtShutdownStayAsLogged() throws Exception {
    context.getLogger("dev.kandev.recovery.worker.Components").error("lost work", rejectedWhileShuttingDown());

    assertThat(events.list).singleElement().extracting(ILoggingEvent::getLevel).isEqualTo(Level.ERROR);
  }

  /** The SDK's race, made deterministic: the pool stops while its only task still runs, then the task resubmits. */
  private static RejectedExecutionException rejectedWhileShuttingDown() throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(1);
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    pool.execute(() -> {
      running.countDown();
      awaitQuietly(release);
    });
    running.await();
    pool.shutdown();
    RejectedExecutionException rejected = catchThrowableOfType(RejectedExecutionException.class, () -> pool.execute(() -> {}));
    release.countDown();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    return rejected;
  }

  /** A running pool that is full rejects too: that is no shutdown. */
  private static RejectedExecutionException rejectedWhileRunning() throws InterruptedException {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new SynchronousQueue<>());
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    pool.execute(() -> {
      running.countDown();
      awaitQuietly(release);
    });
    running.await();
    RejectedExecutionException rejected = catchThrowableOfType(RejectedExecutionException.class, () -> pool.execute(() -> {}));
    release.countDown();
    pool.shutdown();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    return rejected;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
