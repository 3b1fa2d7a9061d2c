package dev.kandev.recovery.activities.agent;

import java.util.List;

/** Chooses, at each launch, the argv that starts a profile's agent. */
@FunctionalInterface
public interface AgentCommands {
  List<String> argv(AgentProfile profile);
}
