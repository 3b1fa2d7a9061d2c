package dev.kandev.recovery.workflows.runtime;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The catalogue of agents whose npm runtime may be updated and repaired. Production uses {@link
 * #KANDEV}, the npm-distributed agents Kandev ships; a test builds a catalogue with one more entry
 * (the packaged test agent) through {@link #with}. It is static data, so workflow code may read it.
 */
public final class BuiltInAgents {
  /** Kandev's built-in npm agents (kandev {@code apps/backend/internal/agent/agents/*}). */
  public static final BuiltInAgents KANDEV =
      new BuiltInAgents(List.of(
          new AgentRuntime("claude-acp", "@agentclientprotocol/claude-agent-acp", "claude-agent-acp", List.of()),
          new AgentRuntime("codex-acp", "@agentclientprotocol/codex-acp", "codex-acp", List.of()),
          new AgentRuntime("opencode-acp", "opencode-ai", "opencode",
              List.of("acp", "--print-logs", "--log-level", "ERROR")),
          new AgentRuntime("copilot-acp", "@github/copilot", "copilot", List.of("--acp")),
          new AgentRuntime("gemini", "@google/gemini-cli", "gemini", List.of("--acp"))));

  private final Map<String, AgentRuntime> byId;

  private BuiltInAgents(List<AgentRuntime> agents) {
    Map<String, AgentRuntime> map = new LinkedHashMap<>();
    for (AgentRuntime agent : agents) {
      if (map.put(agent.agentId(), agent) != null) {
        throw new IllegalArgumentException("duplicate agent id " + agent.agentId());
      }
    }
    this.byId = Collections.unmodifiableMap(map);
  }

  /** This catalogue plus {@code extra} (tests: the packaged ACP test agent). */
  public BuiltInAgents with(AgentRuntime... extra) {
    List<AgentRuntime> all = new ArrayList<>(byId.values());
    all.addAll(List.of(extra));
    return new BuiltInAgents(all);
  }

  public Optional<AgentRuntime> find(String agentId) {
    return Optional.ofNullable(agentId == null ? null : byId.get(agentId));
  }

  public List<AgentRuntime> all() {
    return List.copyOf(byId.values());
  }

  public List<String> ids() {
    return List.copyOf(byId.keySet());
  }
}
