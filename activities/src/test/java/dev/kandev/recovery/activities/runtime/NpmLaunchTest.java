package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kandev.recovery.activities.agent.AgentProfile;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.FileTreeSnapshot;
import dev.kandev.recovery.activities.testing.NpmSandbox;
import dev.kandev.recovery.activities.testing.TestAgentNpmWorld;
import dev.kandev.recovery.activities.testing.TestAgentPackage;
import dev.kandev.recovery.workflows.runtime.AgentRuntime;
import dev.kandev.recovery.workflows.runtime.ProbeInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A built-in npm agent starts from its installed tree's bin when the tree is healthy, else with
 * npx exactly as before; either way the launch changes nothing in the tree. The real npm, the
 * packed test agent from a loopback registry, a private cache.
 */
class NpmLaunchTest {
  private static final String SPEC = TestAgentPackage.NAME;
  private static final AgentRuntime AGENT = new AgentRuntime("kandev-test-agent", SPEC, SPEC, List.of());
  private static final Duration PROBE_WITHIN = Duration.ofSeconds(30);
  @RegisterExtension static final TestAgentNpmWorld world = new TestAgentNpmWorld();
  private Path dir;
  private NpmSandbox sandbox;
  private NpmLaunch launch;
  private Path tree;
  private Path packageDir;

  @BeforeEach
  void installThroughNpx() {
    dir = world.dir();
    sandbox = world.sandbox();
    launch = new NpmLaunch(sandbox.settings(), new CommandRunner());
    tree = world.installThroughNpx();
    packageDir = tree.resolve("node_modules").resolve(SPEC);
  }

  @Test
  void aHealthyTreeStartsItsDeclaredBinDirectlyAndAnswersInitialize() throws Exception {
    Map<String, String> before = cacheWithoutLogs();

    NpmLaunch.Plan plan = launch.plan(withArgs("--replay=0"));

    Path bin = packageDir.resolve("bin/kandev-test-agent.js").toRealPath();
    assertThat(plan.direct()).isTrue();
    assertThat(plan.bin()).isEqualTo(bin);
    assertThat(plan.argv()).containsExactly(bin.toString(), "--replay=0");
    assertThat(plan.fallbackReason()).isNull();
    assertThat(probe(plan)).isEqualTo(new ProbeInfo(SPEC, TestAgentPackage.VERSION, 1, true));
    assertThat(cacheWithoutLogs()).isEqualTo(before);
  }

  @Test
  void onlyBuiltInProfilesAreRewrittenAConfiguredOneStartsAsConfigured() throws Exception {
    List<String> npx = sandbox.settings().launchCommand(SPEC, List.of());
    AgentProfile configured = new AgentProfile("kandev-test-agent", npx, Map.of(), null);
    AgentProfile builtIn = new AgentProfile("kandev-test-agent", npx, Map.of(), null, AGENT);

    assertThat(launch.argv(configured)).isEqualTo(npx);
    assertThat(launch.argv(builtIn)).containsExactly(packageDir.resolve("bin/kandev-test-agent.js").toRealPath().toString());
  }

  @Test
  void aTreeDecidedAtEachLaunchNotOnce() throws Exception {
    NpmLaunch.Plan before = launch.plan(AGENT);
    Files.delete(packageDir.resolve("bin/kandev-test-agent.js"));

    assertThat(before.direct()).isTrue();
    assertThat(launch.plan(AGENT).direct()).isFalse();
  }

  @Test
  void aMissingPackageJsonFallsBackToNpxWhichStillStartsTheAgent() throws Exception {
    NpmLaunch.Plan plan = planWithout("package.json", "its package.json is missing");

    assertThat(probe(plan).agentName()).isEqualTo(SPEC);
    // npx itself (not this code) restores a package.json its tree lacks, as it did before this change
    assertThat(packageDir.resolve("package.json")).isRegularFile();
  }

  @Test
  void aMissingBinFallsBackToNpxWhichFailsAsBefore() throws Exception {
    NpmLaunch.Plan plan = planWithout("bin/kandev-test-agent.js", "its bin bin/kandev-test-agent.js is missing");
    Map<String, String> before = cacheWithoutLogs();

    assertThatThrownBy(() -> probe(plan)).isInstanceOf(AcpProbe.ProbeFailedException.class)
        .hasMessageContaining("before answering initialize");
    assertThat(cacheWithoutLogs()).isEqualTo(before);
  }

  /**
   * Deletes {@code file} of the installed package and plans the launch: it falls back to npx for
   * {@code reason}, and deciding so writes nothing into the cache.
   */
  private NpmLaunch.Plan planWithout(String file, String reason) throws Exception {
    Files.delete(packageDir.resolve(file));
    Map<String, String> before = cacheWithoutLogs();
    NpmLaunch.Plan plan = launch.plan(AGENT);
    assertFellBackToNpx(AGENT, plan, reason);
    assertThat(cacheWithoutLogs()).as("deciding wrote nothing").isEqualTo(before);
    return plan;
  }

  @Test
  void aBinDeclaredWithDotDotOrAsAnAbsolutePathFallsBackToNpx() throws Exception {
    Path outside = Files.writeString(dir.resolve("outside.js"), "#!/usr/bin/env node\n");
    Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rwxr-xr-x"));
    for (String declared : List.of("../../../../outside.js", "bin/../../../../../outside.js", outside.toString())) {
      declareBin(declared);

      assertFellBackToNpx(AGENT, launch.plan(AGENT), "its bin '" + declared + "' is not a plain relative path inside the package");
    }
  }

  @Test
  void aBinThatIsASymlinkOutOfTheTreeFallsBackToNpx() throws Exception {
    Path entry = packageDir.resolve("bin/kandev-test-agent.js");
    Path outside = Files.copy(entry, dir.resolve("elsewhere.js"));
    Files.delete(entry);
    Files.createSymbolicLink(entry, outside);
    Map<String, String> before = cacheWithoutLogs();

    NpmLaunch.Plan plan = launch.plan(AGENT);

    assertFellBackToNpx(AGENT, plan, "its bin bin/kandev-test-agent.js leads out of the execution tree");
    assertThat(probe(plan).agentName()).as("npx follows the link, as it always did").isEqualTo(SPEC);
    assertThat(cacheWithoutLogs()).isEqualTo(before);
  }

  @Test
  void aTreeThatIsASymlinkFallsBackToNpx() throws Exception {
    Path elsewhere = dir.resolve("elsewhere-tree");
    Files.move(tree, elsewhere);
    Files.createSymbolicLink(tree, elsewhere);

    assertFellBackToNpx(AGENT, launch.plan(AGENT), "is a symlink");
  }

  @Test
  void aPackageJsonNamingAnotherPackageOrNoBinFallsBackToNpx() throws Exception {
    Path manifest = packageDir.resolve("package.json");
    String original = Files.readString(manifest);
    Files.writeString(manifest, original.replace("\"name\": \"kandev-test-agent\"", "\"name\": \"other-agent\""));
    assertFellBackToNpx(AGENT, launch.plan(AGENT), "its package.json does not name kandev-test-agent");

    Files.writeString(manifest, "{\"name\": \"kandev-test-agent\", \"bin\": {\"a\": \"a.js\", \"b\": \"b.js\"}}");
    assertFellBackToNpx(AGENT, launch.plan(AGENT), "declares no bin npx would run");

    Files.writeString(manifest, "{\"name\": ");
    assertFellBackToNpx(AGENT, launch.plan(AGENT), "cannot read the execution tree");
  }

  @Test
  void aBinThatIsNotExecutableFallsBackToNpx() throws Exception {
    Files.setPosixFilePermissions(packageDir.resolve("bin/kandev-test-agent.js"), PosixFilePermissions.fromString("rw-r--r--"));

    assertFellBackToNpx(AGENT, launch.plan(AGENT), "is not executable");
  }

  @Test
  void noTreeOrASpecWithAVersionStartsWithNpx() throws Exception {
    AgentRuntime pinned = new AgentRuntime("pinned", SPEC + "@1.0.0", SPEC, List.of());
    assertFellBackToNpx(pinned, launch.plan(pinned), "is not a bare package name");

    AgentRuntime other = new AgentRuntime("other", "other-agent", "other-agent", List.of());
    assertFellBackToNpx(other, launch.plan(other), "no execution tree at " + sandbox.npxTree("other-agent"));
  }

  @Test
  void anUnusableCacheRootFallsBackToNpx() {
    Map<String, String> env = new TreeMap<>(sandbox.environment());
    env.put("npm_config_cache", "relative/cache");
    NpmSettings relative = new NpmSettings("npm", "npx", env, Duration.ofSeconds(90), PROBE_WITHIN, PROBE_WITHIN);

    assertFellBackToNpx(AGENT, new NpmLaunch(relative, new CommandRunner()).plan(AGENT), "is not absolute");
  }

  /** The plan is today's npx command for {@code agent}, for the reason given. */
  private void assertFellBackToNpx(AgentRuntime agent, NpmLaunch.Plan plan, String why) {
    assertThat(plan.direct()).isFalse();
    assertThat(plan.bin()).isNull();
    assertThat(plan.argv()).isEqualTo(sandbox.settings().launchCommand(agent.packageSpec(), agent.acpArgs()));
    assertThat(plan.fallbackReason()).contains(why);
  }

  private void declareBin(String declared) throws Exception {
    Path manifest = packageDir.resolve("package.json");
    ObjectNode json = (ObjectNode) Json.mapper().readTree(manifest.toFile());
    json.putObject("bin").put(SPEC, declared);
    Files.writeString(manifest, Json.mapper().writeValueAsString(json));
  }

  private static AgentRuntime withArgs(String... args) {
    return new AgentRuntime(AGENT.agentId(), SPEC, SPEC, List.of(args));
  }

  private ProbeInfo probe(NpmLaunch.Plan plan) throws AcpProbe.ProbeFailedException {
    return new StdioAcpProbe(Json.mapper()).probe(plan.argv(), sandbox.environment(), PROBE_WITHIN);
  }

  /** npm writes its own debug logs under {@code _logs} on every run; everything else must stay. */
  private Map<String, String> cacheWithoutLogs() {
    Map<String, String> files = new TreeMap<>(FileTreeSnapshot.of(sandbox.cache()));
    files.keySet().removeIf(path -> path.startsWith("_logs"));
    return files;
  }
}
