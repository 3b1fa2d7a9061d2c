package dev.kandev.recovery.workflows.runtime;

import java.util.List;

/**
 * The catalogue tests run with: Kandev's built-ins plus the project's ACP test agent, published
 * as {@code kandev-test-agent} on a local registry, and a variant whose ACP mode exits before
 * answering {@code initialize} (for the failed probe).
 */
public final class TestAgents {
  public static final AgentRuntime TEST_AGENT =
      new AgentRuntime("kandev-test-agent", "kandev-test-agent", "kandev-test-agent", List.of());
  public static final AgentRuntime BROKEN_ACP =
      new AgentRuntime("kandev-test-agent-broken", "kandev-test-agent", "kandev-test-agent",
          List.of("--mode=exit-before-initialize"));
  public static final BuiltInAgents CATALOGUE = BuiltInAgents.KANDEV.with(TEST_AGENT, BROKEN_ACP);

  private TestAgents() {}
}
