package dev.kandev.recovery.activities.runtime;

import dev.kandev.recovery.workflows.runtime.ProbeInfo;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The ACP capability probe: start the agent, {@code initialize}, check the answer, stop it. */
public interface AcpProbe {
  ProbeInfo probe(List<String> argv, Map<String, String> environment, Duration timeout) throws ProbeFailedException;

  final class ProbeFailedException extends Exception {
    public ProbeFailedException(String message) {
      super(message);
    }
  }
}
