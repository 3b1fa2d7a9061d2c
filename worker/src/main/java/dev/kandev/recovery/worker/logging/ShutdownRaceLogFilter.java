package dev.kandev.recovery.worker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Marker;

/**
 * A clean stop logs no stack trace. The Java SDK (1.38) has a race in its poll loop: a loop that
 * found the worker still running resubmits itself to its executor, which shut down meanwhile, and
 * the rejection reaches the poller's uncaught-exception handler as an ERROR with a stack trace
 * (temporalio/sdk-java#3076, not released). A rejection by an executor that is shutting down or
 * terminated, logged by the SDK, is logged at DEBUG instead, in one line; a rejection by a running
 * executor stays an ERROR.
 */
public final class ShutdownRaceLogFilter extends TurboFilter {
  private static final String SDK = "io.temporal.";

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (level == null || !level.isGreaterOrEqual(Level.INFO) || !logger.getName().startsWith(SDK)
        || !(t instanceof RejectedExecutionException rejected) || !byAStoppedExecutor(rejected)) {
      return FilterReply.NEUTRAL;
    }
    if (logger.isDebugEnabled()) {
      logger.debug("{} at shutdown (the SDK's poll loop raced its executor's stop): {}", format, rejected.getMessage());
    }
    return FilterReply.DENY;
  }

  /** A {@code ThreadPoolExecutor}'s rejection names its state: Running, Shutting down or Terminated. */
  private static boolean byAStoppedExecutor(RejectedExecutionException rejected) {
    String message = rejected.getMessage();
    return message != null && (message.contains("[Shutting down,") || message.contains("[Terminated,"));
  }
}
