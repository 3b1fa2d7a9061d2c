package dev.kandev.recovery.worker;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.WAITING_FOR_INPUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.ActivityHooks;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.model.Fence;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The promises of the lease's threat model (docs/credentials.md), on the real worker with the real
 * test agent, real git and the project's credential helper. Each test steals the agent's lease token
 * the way any process of the same user can, from {@code /proc/<pid>/environ}, and shows what it is
 * worth: nothing outside the agent's process tree, nothing for another repository, and nothing
 * once the agent has ended, however it ends.
 */
public class LeaseLifetimeTest {
  private static final String WIDGETS = "protocol=https\nhost=github.com\npath=acme/widgets.git\n";

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  private final ActivityHooks hooks = new ActivityHooks();
  @RegisterExtension @Order(2) final ResumeHarness harness = new ResumeHarness(db, hooks);
  private final HttpClient http = HttpClient.newHttpClient();

  private record Reply(int status, String body) {}

  /** A session with a GitHub-backed repository, resumed: its agent runs with a lease. */
  private long resumedAgent() throws Exception {
    harness.establishedSession("s1", FAILED);
    harness.gitHubBacked("s1", "github_app");
    assertThat(harness.resume("s1", ResumeMode.RESUME).finalState()).isEqualTo(WAITING_FOR_INPUT);
    return agentPid();
  }

  private long agentPid() {
    return harness.components().agentHost().agentProcess("s1").orElseThrow().pid();
  }

  /** What any process of the worker's user can do: read the agent's environment. */
  private String stealLeaseToken(long pid) throws IOException {
    String environ = new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ")), StandardCharsets.UTF_8);
    String token = Arrays.stream(environ.split("\0"))
        .filter(entry -> entry.startsWith("KANDEV_CREDENTIAL_LEASE="))
        .map(entry -> entry.substring("KANDEV_CREDENTIAL_LEASE=".length()))
        .findFirst().orElseThrow();
    harness.knownSecret(token);
    return token;
  }

  /** The stolen token presented at the worker's endpoint by this test's JVM, not a process of the agent. */
  private Reply redeemFromOutside(String token) throws Exception {
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(harness.components().redemptionUrl())
        .header("Authorization", "Bearer " + token)
        .POST(HttpRequest.BodyPublishers.ofString(WIDGETS)).build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(response.statusCode(), response.body());
  }

  private void awaitRevoked() {
    Await.until(() -> harness.liveLeases("s1") == 0, Duration.ofSeconds(20), "the agent's lease to be revoked");
    assertThat(harness.fixtures().count("SELECT count(*) FROM credential_leases WHERE session_id = 's1'")).isOne();
  }

  private void assertRevokedAndRefused(String token) throws Exception {
    awaitRevoked();
    Reply reply = redeemFromOutside(token);
    assertThat(reply.status()).isEqualTo(401);
    assertThat(reply.body()).contains("CREDENTIAL_LEASE_INVALID", "is revoked").doesNotContain(token);
  }

  @Test
  void aStolenTokenRedeemsOnlyInsideTheAgentsTreeAndOnlyForTheSessionsRepository() throws Exception {
    String token = stealLeaseToken(resumedAgent());

    Reply outside = redeemFromOutside(token);
    String inside = harness.prompt("s1", "git-credential:github.com/acme/widgets").responseText();
    String otherRepository = harness.prompt("s1", "git-credential:github.com/acme/gadgets").responseText();

    assertThat(outside.status()).as(outside.body()).isEqualTo(403);
    assertThat(outside.body()).contains("CREDENTIAL_SCOPE_DENIED", "redeems only for a process of session s1's agent");
    assertThat(inside).contains("username=x-access-token").doesNotContain("password-length=0");
    assertThat(otherRepository).contains("git credential failed").contains("403")
        .contains("is not for this repository");
    assertThat(harness.github().issued()).as("GitHub minted only for the agent's own request").hasSize(1);
    assertThat(harness.liveLeases("s1")).as("the lease lives while its agent runs").isOne();
  }

  @Test
  void anAgentThatExitsOnItsOwnTakesItsLeaseWithIt() throws Exception {
    long pid = resumedAgent();
    String token = stealLeaseToken(pid);

    harness.prompt("s1", "exit");

    Await.until(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true), Duration.ofSeconds(20), "the agent to exit");
    assertRevokedAndRefused(token);
  }

  @Test
  void anAgentKilledWithSigkillTakesItsLeaseWithIt() throws Exception {
    long pid = resumedAgent();
    String token = stealLeaseToken(pid);

    ProcessHandle.of(pid).orElseThrow().destroyForcibly();

    assertRevokedAndRefused(token);
  }

  @Test
  void anAgentTheWorkerStopsTakesItsLeaseWithIt() throws Exception {
    String token = stealLeaseToken(resumedAgent());

    harness.components().agentHost().stop("s1");

    assertRevokedAndRefused(token);
  }

  @Test
  void anAgentTheReaperStopsTakesItsLeaseWithIt() throws Exception {
    String token = stealLeaseToken(resumedAgent());

    // Another writer ends the session: no resume owns the agent any more, and the reaper stops it.
    db.run(h -> harness.sessions().transition(h, "s1", Set.of(WAITING_FOR_INPUT), FAILED, "test", "ended elsewhere", Fence.none()));

    assertRevokedAndRefused(token);
  }

  @Test
  void aResumeFailingAfterTheLaunchRevokesTheLeaseTheAgentHad() throws Exception {
    harness.establishedSession("s1", FAILED);
    harness.gitHubBacked("s1", "github_app");
    AtomicReference<String> token = new AtomicReference<>();
    hooks.after("launchAgent", () -> {
      try {
        token.set(stealLeaseToken(agentPid()));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      ActivityHooks.fail("launchAgent").run();
    });

    harness.resumeFailing("s1", ResumeMode.RESUME);

    assertThat(token.get()).hasSize(43);
    assertThat(harness.components().agentHost().isRunning("s1")).isFalse();
    assertRevokedAndRefused(token.get());
  }

  @Test
  void aWorkerThatStopsRevokesTheLeasesOfTheAgentsItStops() throws Exception {
    String token = stealLeaseToken(resumedAgent());
    String leaseId = harness.fixtures().string("SELECT id FROM credential_leases WHERE session_id = 's1'");

    harness.components().close(); // what Ctrl-C of dev or SIGTERM of worker does to the parts

    assertThat(harness.fixtures().count("SELECT count(*) FROM credential_leases WHERE id = ? AND revoked_at IS NOT NULL",
        leaseId)).as("revoked before the worker's parts closed").isOne();
    assertThat(token).hasSize(43);
  }
}
