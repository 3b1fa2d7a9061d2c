package dev.kandev.recovery.worker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import dev.kandev.recovery.workflows.ExpectedFailures;
import org.slf4j.Marker;

/**
 * Completes the SDK's handling of benign failures: the Java SDK logs a benign activity failure at
 * DEBUG, but a workflow that fails with one still gets a WARN with the whole stack trace
 * ("Workflow execution failure …"). Any event of the SDK ({@code io.temporal.*}) above DEBUG whose
 * throwable is an expected (benign) failure is logged at DEBUG instead. Our workflows log the
 * outcome of such a failure themselves, in one line.
 */
public final class ExpectedFailureLogFilter extends TurboFilter {
  private static final String SDK = "io.temporal.";

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (level == null || !level.isGreaterOrEqual(Level.INFO) || !logger.getName().startsWith(SDK)) {
      return FilterReply.NEUTRAL;
    }
    Throwable thrown = t != null ? t : lastThrowable(params);
    if (thrown == null || !ExpectedFailures.isExpected(thrown)) {
      return FilterReply.NEUTRAL;
    }
    if (logger.isDebugEnabled()) {
      logger.debug(marker, format, params);
    }
    return FilterReply.DENY;
  }

  /** SLF4J's convention: a throwable as the last argument is the event's throwable. */
  private static Throwable lastThrowable(Object[] params) {
    return params != null && params.length > 0 && params[params.length - 1] instanceof Throwable last ? last : null;
  }
}
