package dev.kandev.recovery.worker.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.CountDownLatch;
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
    ILoggingEvent event = loggedBySdk(rejection(true));

    assertThat(event.getLevel()).isEqualTo(Level.DEBUG);
    assertThat(event.getThrowableProxy()).isNull();
    assertThat(event.getFormattedMessage()).startsWith("uncaught exception at shutdown").contains("Shutting down");
  }

  @Test
  void aRejectionByARunningExecutorStaysAnError() throws Exception {
    ILoggingEvent event = loggedBySdk(rejection(false));

    assertThat(event.getLevel()).isEqualTo(Level.ERROR);
    assertThat(event.getThrowableProxy()).isNotNull();
  }

  @Test
  void ourOwnRejectionsAtShutdownStayAsLogged() throws Exception {
    context.getLogger("dev.kandev.recovery.worker.Components").error("lost work", rejection(true));

    assertThat(events.list).singleElement().extracting(ILoggingEvent::getLevel).isEqualTo(Level.ERROR);
  }

  /** What the SDK's poll loop logs when its resubmission is rejected: the one event that reached the appender. */
  private ILoggingEvent loggedBySdk(RejectedExecutionException rejected) {
    context.getLogger("io.temporal.internal.worker.PollerOptions").error("uncaught exception", rejected);
    assertThat(events.list).hasSize(1);
    return events.list.get(0);
  }

  /**
   * The SDK's race, made deterministic: a one-thread pool without a queue, its thread busy, rejects
   * the next task — because it is full, or, once {@code stopping} shut it down, because it stops.
   */
  private static RejectedExecutionException rejection(boolean stopping) throws InterruptedException {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new SynchronousQueue<>());
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    pool.execute(() -> {
      running.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    running.await();
    if (stopping) {
      pool.shutdown();
    }
    RejectedExecutionException rejected = catchThrowableOfType(RejectedExecutionException.class, () -> pool.execute(() -> {}));
    release.countDown();
    pool.shutdown();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    return rejected;
  }
}
