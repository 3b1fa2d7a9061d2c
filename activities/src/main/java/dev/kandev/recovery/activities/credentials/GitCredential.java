package dev.kandev.recovery.activities.credentials;

/** A live git credential. Secret: resolved per redemption, never stored, printed or logged. */
public record GitCredential(String username, String password) {
  /** The username GitHub expects with an installation token. */
  public static final String GITHUB_APP_USERNAME = "x-access-token";

  /** Git's credential helper output format. */
  public String toGitCredentialFormat() {
    return "username=" + username + "\npassword=" + password + "\n";
  }

  @Override
  public String toString() {
    return "GitCredential[username=" + username + ", password=<redacted>]";
  }
}
