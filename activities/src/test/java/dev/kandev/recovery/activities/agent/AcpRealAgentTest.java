package dev.kandev.recovery.activities.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.acp.AcpTimeouts;
import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.workflows.model.AgentFailureClass;
import dev.kandev.recovery.workflows.model.SessionState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client against a real ACP agent from npm: OpenCode ({@code opencode-ai}, {@code opencode
 * acp}), which answers initialize and session/new offline without credentials. Installed once
 * into a fixed directory under {@code java.io.tmpdir} with a private npm cache, so repeated runs
 * need no registry. If the package is not installed and the registry cannot be reached, the test
 * is skipped and says so.
 */
class AcpRealAgentTest {
  private static final Logger log = LoggerFactory.getLogger(AcpRealAgentTest.class);
  private static final String PACKAGE = "opencode-ai";
  private static final String VERSION = System.getProperty("kandev.realAgent.version", "1.18.33");
  private static final Path INSTALL_DIR = Path.of(System.getProperty("kandev.realAgent.dir",
      Path.of(System.getProperty("java.io.tmpdir"), "kandev-acp-real-agents", PACKAGE + "-" + VERSION).toString()));
  private static final AcpTimeouts TIMEOUTS = AcpTimeouts.defaults()
      .withInitialize(Duration.ofSeconds(90))
      .withSessionNew(Duration.ofSeconds(90))
      .withSessionLoad(Duration.ofSeconds(90));
  private static final String SESSION = "s-real";

  private static Path binary;

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final AcpHarness harness = new AcpHarness(db);
  @TempDir Path workspace;
  @TempDir Path home;

  /** Called from the test, not {@code @BeforeAll}: a skip then shows as a skipped test with its reason. */
  private static synchronized Path installedOpenCode() throws Exception {
    if (binary != null) {
      return binary;
    }
    Path bin = INSTALL_DIR.resolve("node_modules").resolve(".bin").resolve("opencode");
    if (!Files.isExecutable(bin)) {
      Files.createDirectories(INSTALL_DIR);
      Result npm = run(Duration.ofSeconds(30), "npm", "--version");
      Assumptions.assumeTrue(npm.ok(), "npm is not installed here; cannot install " + PACKAGE + ": " + npm.output());
      Result ping = run(Duration.ofSeconds(60), "npm", "ping");
      Assumptions.assumeTrue(ping.ok(),
          "npm registry unreachable (npm ping failed) and " + PACKAGE + " is not installed in " + INSTALL_DIR
              + "; real-agent test skipped: " + ping.output());
      Result install = run(Duration.ofMinutes(5), "npm", "install", "--no-audit", "--no-fund", "--prefix",
          INSTALL_DIR.toString(), PACKAGE + "@" + VERSION);
      Assertions.assertTrue(install.ok(), "the registry answered but installing " + PACKAGE + " failed: " + install.output());
    }
    Assertions.assertTrue(Files.isExecutable(bin), "no opencode binary at " + bin);
    binary = bin;
    return bin;
  }

  private record Result(boolean ok, String output) {}

  private static Result run(Duration timeout, String... argv) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(argv));
    Path log = Files.createTempFile("kandev-npm", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("npm_config_cache", INSTALL_DIR.resolve(".npm-cache").toString());
    builder.environment().put("npm_config_update_notifier", "false");
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      return new Result(false, e.getMessage());
    }
    boolean done = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (!done) {
      process.destroyForcibly().waitFor();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    Files.deleteIfExists(log);
    output = output.length() > 2000 ? output.substring(output.length() - 2000) : output;
    return new Result(done && process.exitValue() == 0, done ? output : "timed out after " + timeout + "; " + output);
  }

  @Test
  void openCodeCompletesTheHandshakeAndItsStoredSessionIsOnlyEverLoaded() throws Exception {
    AgentProfile profile = new AgentProfile("test-agent", List.of(installedOpenCode().toString(), "acp"),
        Map.of("HOME", home.toString(), "OPENCODE_DISABLE_AUTOUPDATE", "1"), null);
    harness.start(AgentProfiles.of(profile), TIMEOUTS, PermissionPolicy.REJECT);
    db.fixtures().task("t-1", "ws-1", "REVIEW").session(SESSION, "t-1", "test-agent", SessionState.STARTING, "{}");

    LaunchResult created = harness.launch(SESSION, workspace);

    assertThat(created.loaded()).isFalse();
    assertThat(created.agentName()).isEqualTo("OpenCode");
    assertThat(created.agentVersion()).isEqualTo(VERSION);
    assertThat(created.providerSessionId()).isNotBlank();
    assertThat(db.tx((Handle h) -> harness.identities.read(h, SESSION)))
        .isEqualTo(new SessionIdentity(created.providerSessionId(), created.providerSessionId()));
    harness.host.stop(SESSION);

    // Offline, OpenCode may answer with an internal error (it cannot reach its model catalogue);
    // either way the stored session is reattached (OpenCode advertises session/resume), never replaced.
    try {
      LaunchResult loaded = harness.launch(SESSION, workspace);
      assertThat(loaded.loaded()).isTrue();
      assertThat(loaded.method()).as("OpenCode %s advertises sessionCapabilities.resume", VERSION)
          .isEqualTo(SessionMethod.RESUME);
      assertThat(loaded.providerSessionId()).isEqualTo(created.providerSessionId());
      log.info("OpenCode reattached session {} by {} ({} messages replayed)", loaded.providerSessionId(),
          loaded.method().wireName(), loaded.replayedMessages());
    } catch (AgentLaunchException e) {
      log.info("OpenCode rejected reattaching its session: {}", e.acpError());
      assertThat(e.failureClass()).isEqualTo(AgentFailureClass.AGENT_SESSION_LOAD_REJECTED);
      assertThat(e.acpError()).isNotBlank();
    }
    harness.assertTokenUnchanged(SESSION, created.providerSessionId());
  }
}
