package dev.kandev.recovery.activities.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.runtime.CommandRunner;
import dev.kandev.recovery.activities.runtime.NpmLaunch;
import dev.kandev.recovery.activities.testing.NpmSandbox;
import dev.kandev.recovery.activities.testing.TestAgent;
import dev.kandev.recovery.activities.testing.TestAgentNpmWorld;
import dev.kandev.recovery.activities.testing.TestAgentPackage;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.runtime.AgentRuntime;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent host launches a built-in npm agent from its installed bin when the tree is healthy:
 * the process it records is the agent itself, not npx. A broken tree, and a configured profile,
 * start through npx as before. Real npm, the packed test agent from a loopback registry, a real DB.
 */
class AcpNpmLaunchTest {
  private static final String SESSION = "s-1";
  private static final String SPEC = TestAgentPackage.NAME;
  private static final AgentRuntime AGENT = new AgentRuntime(TestAgent.AGENT_ID, SPEC, SPEC, List.of());
  @RegisterExtension static final TestAgentNpmWorld world = new TestAgentNpmWorld();
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final AcpHarness harness = new AcpHarness(db);
  @TempDir Path workspace;
  private NpmSandbox sandbox;
  private Path launchLog;

  @BeforeEach
  void installThroughNpx() {
    sandbox = world.sandbox();
    launchLog = world.dir().resolve("launch.log");
    world.installThroughNpx();
    db.fixtures().task("t-1", "ws-1", "REVIEW").session(SESSION, "t-1", AGENT.agentId(), SessionState.STARTING, "{}");
  }

  @Test
  void aHealthyTreeLaunchesTheBinItselfInTheWorkspace() throws Exception {
    LaunchResult result = launch(true);

    Path bin = sandbox.npxTree(SPEC).resolve("node_modules/kandev-test-agent/bin/kandev-test-agent.js").toRealPath();
    assertThat(result.agentName()).isEqualTo(SPEC);
    // the kernel runs the bin's "#!/usr/bin/env node", exactly as when npx execs its .bin link
    assertThat(commandLine(result.pid())).containsExactly("node", bin.toString());
    JsonNode started = startEvent();
    assertThat(started.path("pid").asLong()).as("the launched process is the agent").isEqualTo(result.pid());
    assertThat(Path.of(started.path("cwd").asText())).isEqualTo(workspace.toRealPath());
  }

  @Test
  void aTreeWithoutItsPackageJsonLaunchesThroughNpx() throws Exception {
    Files.delete(sandbox.npxTree(SPEC).resolve("node_modules/kandev-test-agent/package.json"));

    LaunchResult result = launch(true);

    assertThat(result.agentName()).isEqualTo(SPEC);
    assertLaunchedThroughNpx(result);
  }

  @Test
  void aConfiguredProfileWithTheSameCommandIsLaunchedAsConfigured() throws Exception {
    LaunchResult result = launch(false);

    assertThat(result.agentName()).isEqualTo(SPEC);
    assertLaunchedThroughNpx(result);
  }

  private LaunchResult launch(boolean builtIn) {
    Map<String, String> env = new TreeMap<>(sandbox.environment());
    env.put("KANDEV_TEST_AGENT_STATE_DIR", world.dir().resolve("state").toString());
    env.put("KANDEV_TEST_AGENT_LAUNCH_LOG", launchLog.toString());
    AgentProfile profile = new AgentProfile(AGENT.agentId(), sandbox.settings().launchCommand(SPEC, List.of()), env, null,
        builtIn ? AGENT : null);
    return harness.start(AgentProfiles.of(profile), AcpHarness.TIMEOUTS, PermissionPolicy.ALLOW,
        new NpmLaunch(sandbox.settings(), new CommandRunner())).launch(SESSION, workspace);
  }

  private void assertLaunchedThroughNpx(LaunchResult result) throws Exception {
    assertThat(commandLine(result.pid()).get(0)).as("npm names its process after itself").matches("npx|npm.*|node");
    assertThat(String.join(" ", commandLine(result.pid()))).doesNotContain("bin/kandev-test-agent.js");
    assertThat(startEvent().path("pid").asLong()).as("npx starts the agent as another process").isNotEqualTo(result.pid());
  }

  private JsonNode startEvent() throws Exception {
    return Json.mapper().readTree(Files.readAllLines(launchLog).get(0));
  }

  /** The running process's argv, as the kernel shows it. */
  private static List<String> commandLine(long pid) throws Exception {
    String raw = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")), StandardCharsets.UTF_8);
    return List.of(raw.split("\0"));
  }
}
