package dev.kandev.recovery.worker;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.FakeGitHubServer.TokenRequest;
import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.harness.GitHubAppStandIn;
import dev.kandev.recovery.worker.harness.ResumeHarness;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A session's executor ({@code task_sessions.executor_id}) selects its credential policy: an
 * executor with a row in {@code executor_credential_policies} gets that policy's snapshot, lease
 * and installation token; a session on an executor without one keeps its workspace's policy. The
 * agent's own git asks the GitHub stand-in through the credential helper.
 */
public class ExecutorCredentialPolicyTest {
  private static final long EXECUTOR_INSTALLATION = 88;

  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final ResumeHarness harness = new ResumeHarness(db);

  @BeforeEach
  void setUp() {
    harness.github().alsoInstalledAs(EXECUTOR_INSTALLATION);
  }

  @Test
  void aSessionWhoseExecutorHasItsOwnPolicyGetsThatPolicysSnapshotAndToken() throws Exception {
    harness.establishedSession("own", FAILED);
    harness.establishedSession("plain", FAILED);
    // Both tasks work on acme/widgets in ws-1, whose policy is the App's installation 77 with write access.
    harness.gitHubBacked("own", "github_app");
    harness.credentials().link(ResumeHarness.taskOf("plain"), "repo-widgets", 0);
    // Executor exec-own brings its own installation with read-only access; exec-plain has no policy.
    harness.credentials().executorPolicy("exec-own", "github_app", EXECUTOR_INSTALLATION, "{\"contents\":\"read\"}");
    runsOn("own", "exec-own");
    runsOn("plain", "exec-plain");

    harness.resume("own", ResumeMode.RESUME);
    TokenRequest ownToken = tokenTheAgentsGitGets("own");
    harness.resume("plain", ResumeMode.RESUME);
    TokenRequest plainToken = tokenTheAgentsGitGets("plain");

    JsonNode own = snapshot("own");
    assertThat(own.path("source").asText()).isEqualTo("executor");
    assertThat(own.path("policy").asText()).isEqualTo("github_app");
    assertThat(own.path("installationId").asLong()).isEqualTo(EXECUTOR_INSTALLATION);
    assertThat(own.path("permissions")).isEqualTo(Json.mapper().valueToTree(Map.of("contents", "read")));
    assertThat(leaseExecutor("own")).isEqualTo("exec-own");
    assertThat(ownToken.installationId()).isEqualTo(EXECUTOR_INSTALLATION);
    assertThat(ownToken.repositories()).containsExactly("widgets");
    assertThat(ownToken.permissions()).isEqualTo(Map.of("contents", "read"));

    JsonNode plain = snapshot("plain");
    assertThat(plain.path("source").asText()).isEqualTo("workspace");
    assertThat(plain.path("installationId").asLong()).isEqualTo(GitHubAppStandIn.INSTALLATION);
    assertThat(plain.path("permissions")).isEqualTo(Json.mapper().valueToTree(Map.of("contents", "write")));
    assertThat(plainToken.installationId()).isEqualTo(GitHubAppStandIn.INSTALLATION);
    assertThat(plainToken.permissions()).isEqualTo(Map.of("contents", "write"));
  }

  @Test
  void anExecutorWhosePolicyIsNoneGetsNoLeaseInAGitHubBackedWorkspace() throws Exception {
    harness.establishedSession("byo", FAILED);
    harness.gitHubBacked("byo", "github_app");
    harness.credentials().executorPolicy("exec-byo", "none", null, "{}");
    runsOn("byo", "exec-byo");

    ResumeResult result = harness.resume("byo", ResumeMode.RESUME);

    assertThat(result.loaded()).isTrue();
    assertThat(snapshot("byo").path("policy").asText()).isEqualTo("none");
    assertThat(snapshot("byo").path("source").asText()).isEqualTo("executor");
    assertThat(harness.fixtures().count("SELECT count(*) FROM credential_leases WHERE session_id = 'byo'")).isZero();
    String reply = harness.prompt("byo", "env:KANDEV_CREDENTIAL_LEASE").responseText();
    assertThat(reply).contains("KANDEV_CREDENTIAL_LEASE=<unset>");
  }

  private void runsOn(String sessionId, String executorId) {
    harness.fixtures().exec("UPDATE task_sessions SET executor_id = ? WHERE id = ?", executorId, sessionId);
  }

  /**
   * The agent's git runs the credential helper; returns the installation token GitHub issued for
   * it (the worker caches tokens per installation, repository and permissions: each call here must
   * be for a policy not asked for before).
   */
  private TokenRequest tokenTheAgentsGitGets(String sessionId) {
    int before = harness.github().issued().size();
    String reply = harness.prompt(sessionId, "git-credential:github.com/acme/widgets")
        .responseText();
    assertThat(reply).contains("username=x-access-token").doesNotContain("password-length=0");
    List<TokenRequest> issued = harness.github().issued();
    assertThat(issued).hasSize(before + 1);
    return issued.get(before);
  }

  private JsonNode snapshot(String sessionId) throws Exception {
    return Json.mapper().readTree(harness.snapshotJson(sessionId));
  }

  private String leaseExecutor(String sessionId) {
    return harness.fixtures().string(
        "SELECT executor_id FROM credential_leases WHERE session_id = ? AND revoked_at IS NULL", sessionId);
  }
}
