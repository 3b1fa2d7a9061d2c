package dev.kandev.recovery.activities.credentials.github;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.CredentialPolicy;
import dev.kandev.recovery.activities.credentials.CredentialResolver;
import dev.kandev.recovery.activities.credentials.GitCredential;
import dev.kandev.recovery.activities.credentials.LeaseScope;
import dev.kandev.recovery.activities.credentials.ResolvedPolicy;
import java.time.Clock;
import java.util.Optional;

/**
 * Policy {@code github_app}: an installation token of the configured GitHub App, scoped to the
 * lease's repository and the policy's permission subset. Missing App configuration is reported when
 * a lease is issued, not when the worker starts, so workers without an App still serve {@code
 * none}.
 */
public final class GitHubAppCredentialResolver implements CredentialResolver {
  private final Optional<GitHubAppSettings> settings;
  private final ObjectMapper json;
  private final Clock clock;
  private volatile GitHubInstallationTokens tokens;

  public GitHubAppCredentialResolver(Optional<GitHubAppSettings> settings, ObjectMapper json, Clock clock) {
    this.settings = settings;
    this.json = json;
    this.clock = clock;
  }

  @Override
  public CredentialPolicy policy() {
    return CredentialPolicy.GITHUB_APP;
  }

  @Override
  public void validate(ResolvedPolicy policy) {
    if (policy.installationId() == null) {
      throw CredentialException.configMissing("GitHub App installation id of the " + policy.source() + " policy");
    }
    if (policy.permissions().isEmpty()) {
      throw CredentialException.configMissing("GitHub App permissions of the " + policy.source() + " policy");
    }
    tokens();
  }

  @Override
  public GitCredential resolve(LeaseScope scope, ResolvedPolicy policy) {
    validate(policy);
    InstallationToken token = tokens().token(policy.installationId(), scope.owner(), scope.name(), policy.permissions());
    return new GitCredential(GitCredential.GITHUB_APP_USERNAME, token.token());
  }

  private GitHubInstallationTokens tokens() {
    GitHubInstallationTokens current = tokens;
    if (current == null) {
      synchronized (this) {
        if (tokens == null) {
          GitHubAppSettings app =
              settings.orElseThrow(
                  () -> CredentialException.configMissing(
                      "GitHub App (" + GitHubAppSettings.ENV_APP_ID + ", " + GitHubAppSettings.ENV_PRIVATE_KEY_FILE + ")"));
          tokens = new GitHubInstallationTokens(app, json, clock);
        }
        current = tokens;
      }
    }
    return current;
  }
}
