package dev.kandev.recovery.worker.harness;

import dev.kandev.recovery.activities.testing.CredentialFixtures;
import dev.kandev.recovery.activities.testing.FakeGitHubServer;
import dev.kandev.recovery.activities.testing.TestKeys;
import java.security.interfaces.RSAPublicKey;
import java.util.Map;
import java.util.Set;

/**
 * A GitHub App whose installation may access acme/widgets, played by a local HTTP server, and the
 * worker settings that point at it.
 */
public final class GitHubAppStandIn implements AutoCloseable {
  public static final String APP_ID = "4242";
  public static final long INSTALLATION = 77;

  public final FakeGitHubServer server;
  /** One line of the App's private key: a secret no history may contain. */
  public final String privateKeyLine;
  private final Map<String, String> environment;

  public GitHubAppStandIn() {
    var keys = TestKeys.appKeyPair();
    this.server = new FakeGitHubServer((RSAPublicKey) keys.getPublic(), APP_ID, INSTALLATION,
        Set.of("widgets"), Map.of("contents", "write", "metadata", "read"));
    String pem = TestKeys.pkcs1Pem(keys.getPrivate());
    this.privateKeyLine = pem.lines().skip(3).findFirst().orElseThrow();
    this.environment = Map.of(
        "KANDEV_GITHUB_APP_ID", APP_ID,
        "KANDEV_GITHUB_APP_PRIVATE_KEY", pem,
        "KANDEV_GITHUB_API_BASE", server.apiBase().toString());
  }

  /** The worker settings of this App. */
  public Map<String, String> environment() {
    return environment;
  }

  /** Links acme/widgets to the task and selects {@code policy} for the workspace. */
  public static void backTask(CredentialFixtures credentials, String workspaceId, String taskId, String policy) {
    credentials.repository("repo-widgets", workspaceId, "github.com", "acme", "widgets").link(taskId, "repo-widgets", 0);
    selectPolicy(credentials, workspaceId, policy);
  }

  public static void selectPolicy(CredentialFixtures credentials, String workspaceId, String policy) {
    credentials.fixtures().exec("DELETE FROM workspace_credential_policies WHERE workspace_id = ?", workspaceId);
    credentials.workspacePolicy(workspaceId, policy, "github_app".equals(policy) ? INSTALLATION : null,
        "{\"contents\":\"write\"}");
  }

  @Override
  public void close() {
    server.close();
  }
}
