package dev.kandev.recovery.worker.logging;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.time.format.DateTimeFormatter;

/**
 * Logback's own JSON encoder (one object per line: level, thread, logger, formatted message, MDC,
 * throwable) plus {@code "time"}, the event's instant in ISO-8601 UTC, beside its epoch-millisecond
 * {@code "timestamp"}.
 */
public final class JsonLineEncoder extends JsonEncoder {
  @Override
  protected void appendCustomFields(StringBuilder out, ILoggingEvent event) {
    out.append(',');
    appenderMember(out, "time", DateTimeFormatter.ISO_INSTANT.format(event.getInstant()));
  }
}
