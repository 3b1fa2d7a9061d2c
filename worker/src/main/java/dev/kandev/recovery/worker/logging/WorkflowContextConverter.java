package dev.kandev.recovery.worker.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.util.Map;

/**
 * {@code %workflowContext}: " [session=s-1 workflow=resume-session-s-1 run=… activity=LaunchAgent]"
 * from the MDC inside workflows and activities; nothing elsewhere.
 */
public final class WorkflowContextConverter extends ClassicConverter {
  private static final String[][] SHOWN = {
      {RecoveryMdc.SESSION_ID, "session"},
      {RecoveryMdc.AGENT_ID, "agent"},
      {RecoveryMdc.WORKFLOW_ID, "workflow"},
      {RecoveryMdc.RUN_ID, "run"},
      {RecoveryMdc.ACTIVITY_TYPE, "activity"}};

  @Override
  public String convert(ILoggingEvent event) {
    Map<String, String> mdc = event.getMDCPropertyMap();
    if (mdc == null || mdc.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    for (String[] shown : SHOWN) {
      String value = mdc.get(shown[0]);
      if (value != null && !value.isEmpty()) {
        out.append(out.length() == 0 ? " [" : " ").append(shown[1]).append('=').append(value);
      }
    }
    return out.length() == 0 ? "" : out.append(']').toString();
  }
}
