package dev.kandev.recovery.activities.credentials.github;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.activities.credentials.CredentialException;
import dev.kandev.recovery.activities.credentials.CredentialPolicy;
import dev.kandev.recovery.activities.credentials.GitCredential;
import dev.kandev.recovery.activities.credentials.LeaseScope;
import dev.kandev.recovery.activities.credentials.ResolvedPolicy;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.FakeGitHubServer;
import dev.kandev.recovery.activities.testing.TestKeys;
import dev.kandev.recovery.workflows.FailureType;
import java.net.ServerSocket;
import java.net.URI;
import java.security.KeyPair;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The github_app resolver against a GitHub stand-in that checks the JWT and the requested scope. */
class GitHubInstallationTokensTest {
  private static final Map<String, String> CONTENTS_WRITE = Map.of("contents", "write");

  private final KeyPair keys = TestKeys.appKeyPair();
  private final FakeGitHubServer github =
      new FakeGitHubServer((RSAPublicKey) keys.getPublic(), "777", 42, Set.of("widgets"),
          Map.of("contents", "write", "metadata", "read"));

  @AfterEach
  void tearDown() {
    github.close();
  }

  private GitHubAppCredentialResolver resolver(String pem, URI apiBase, Duration timeout) {
    return new GitHubAppCredentialResolver(
        Optional.of(new GitHubAppSettings("777", pem, apiBase, timeout)), Json.mapper(), Clock.systemUTC());
  }

  private GitHubAppCredentialResolver resolver() {
    return resolver(TestKeys.pkcs1Pem(keys.getPrivate()), github.apiBase(), Duration.ofSeconds(5));
  }

  private static ResolvedPolicy policy(long installation, Map<String, String> permissions) {
    return new ResolvedPolicy(CredentialPolicy.GITHUB_APP, "workspace", installation, permissions);
  }

  private static final LeaseScope WIDGETS = LeaseScope.github("ws", "t", "s", "r", "github.com", "acme/widgets");

  private CredentialException failure(GitHubAppCredentialResolver resolver, ResolvedPolicy policy, LeaseScope scope) {
    try {
      resolver.resolve(scope, policy);
    } catch (CredentialException e) {
      return e;
    }
    throw new AssertionError("expected a CredentialException");
  }

  @Test
  void pkcs1AndPkcs8KeysBothSignAJwtGitHubAccepts() {
    GitCredential a = resolver().resolve(WIDGETS, policy(42, CONTENTS_WRITE));
    GitCredential b = resolver(TestKeys.pkcs8Pem(keys.getPrivate()), github.apiBase(), Duration.ofSeconds(5))
        .resolve(WIDGETS, policy(42, CONTENTS_WRITE));

    assertThat(github.rejections()).isEmpty();
    assertThat(github.issued()).hasSize(2);
    assertThat(a.username()).isEqualTo("x-access-token");
    assertThat(a.password()).isEqualTo(github.issued().get(0).token());
    assertThat(b.password()).isEqualTo(github.issued().get(1).token());
    assertThat(github.issued().get(0).repositories()).containsExactly("widgets");
    assertThat(github.issued().get(0).permissions()).isEqualTo(CONTENTS_WRITE);
  }

  @Test
  void tokensAreCachedUntilFiveMinutesBeforeExpiry() {
    GitHubAppCredentialResolver resolver = resolver();
    resolver.resolve(WIDGETS, policy(42, CONTENTS_WRITE));
    resolver.resolve(WIDGETS, policy(42, CONTENTS_WRITE));
    assertThat(github.calls()).isEqualTo(1);

    resolver.resolve(WIDGETS, policy(42, Map.of("contents", "read")));
    assertThat(github.calls()).as("another permission set is another token").isEqualTo(2);

    github.tokenLifetime(Duration.ofMinutes(4));
    GitHubAppCredentialResolver shortLived = resolver();
    shortLived.resolve(WIDGETS, policy(42, CONTENTS_WRITE));
    shortLived.resolve(WIDGETS, policy(42, CONTENTS_WRITE));
    assertThat(github.calls()).as("a token within 5 min of expiry is refreshed").isEqualTo(4);
  }

  @Test
  void aJwtSignedWithAnotherKeyIsRejectedByGitHubAndNotRetryable() {
    String otherKey = TestKeys.pkcs1Pem(TestKeys.generate().getPrivate());
    CredentialException e = failure(resolver(otherKey, github.apiBase(), Duration.ofSeconds(5)),
        policy(42, CONTENTS_WRITE), WIDGETS);

    assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_PROVIDER_REJECTED);
    assertThat(e.retryable()).isFalse();
    assertThat(e).hasMessageContaining("401").hasMessageContaining("A JSON web token could not be decoded");
    assertThat(github.rejections()).singleElement().asString().contains("signature");
  }

  @Test
  void anUnknownInstallationIs404AndNotRetryable() {
    CredentialException e = failure(resolver(), policy(99, CONTENTS_WRITE), WIDGETS);

    assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_PROVIDER_REJECTED);
    assertThat(e.retryable()).isFalse();
    assertThat(e).hasMessageContaining("404").hasMessageContaining("installation 99");
  }

  @Test
  void aRepositoryOrPermissionBeyondTheInstallationIs422AndNotRetryable() {
    CredentialException repo =
        failure(resolver(), policy(42, CONTENTS_WRITE), LeaseScope.github("ws", "t", "s", "r", "github.com", "acme/secret"));
    CredentialException perms = failure(resolver(), policy(42, Map.of("administration", "write")), WIDGETS);

    assertThat(repo.type()).isEqualTo(FailureType.CREDENTIAL_PROVIDER_REJECTED);
    assertThat(repo).hasMessageContaining("422");
    assertThat(perms.type()).isEqualTo(FailureType.CREDENTIAL_PROVIDER_REJECTED);
    assertThat(perms.retryable()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(ints = {500, 502, 503, 429})
  void serverErrorsAreRetryableAndARetrySucceeds(int status) {
    github.failNext(status, 1);
    GitHubAppCredentialResolver resolver = resolver();

    CredentialException e = failure(resolver, policy(42, CONTENTS_WRITE), WIDGETS);

    assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_PROVIDER_UNAVAILABLE);
    assertThat(e.retryable()).isTrue();
    assertThat(e).hasMessageContaining(Integer.toString(status));
    assertThat(resolver.resolve(WIDGETS, policy(42, CONTENTS_WRITE)).username()).isEqualTo("x-access-token");
  }

  @ParameterizedTest
  @ValueSource(ints = {400, 401, 403, 404, 422})
  void clientErrorsAreNotRetryable(int status) {
    github.failNext(status, 1);

    CredentialException e = failure(resolver(), policy(42, CONTENTS_WRITE), WIDGETS);

    assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_PROVIDER_REJECTED);
    assertThat(e.retryable()).isFalse();
  }

  @Test
  void aSlowGitHubTimesOutRetryably() {
    github.delay(Duration.ofSeconds(2));

    CredentialException e = failure(resolver(TestKeys.pkcs1Pem(keys.getPrivate()), github.apiBase(), Duration.ofMillis(300)),
        policy(42, CONTENTS_WRITE), WIDGETS);

    assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_PROVIDER_UNAVAILABLE);
    assertThat(e.retryable()).isTrue();
    assertThat(e).hasMessageContaining("timed out");
  }

  @Test
  void anUnreachableGitHubIsRetryable() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    CredentialException e = failure(
        resolver(TestKeys.pkcs1Pem(keys.getPrivate()), URI.create("http://127.0.0.1:" + closedPort), Duration.ofSeconds(2)),
        policy(42, CONTENTS_WRITE), WIDGETS);

    assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_PROVIDER_UNAVAILABLE);
    assertThat(e.retryable()).isTrue();
  }

  @Test
  void aMalformedSuccessResponseIsRetryableAndEchoesNothing() {
    github.successBody("{\"token\":\"ghs_leaky\",\"expires_at\":\"tomorrow\"}");

    CredentialException e = failure(resolver(), policy(42, CONTENTS_WRITE), WIDGETS);

    assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_PROVIDER_UNAVAILABLE);
    assertThat(e).hasMessageContaining("malformed").hasMessageNotContaining("ghs_leaky");
  }

  @Test
  void malformedOrMissingConfigurationIsAClearNonRetryableError() {
    String truncated = TestKeys.pkcs1Pem(keys.getPrivate()).substring(0, 200) + "\n-----END RSA PRIVATE KEY-----\n";
    String weak = TestKeys.pkcs8Pem(weakKey());

    assertThatThrownBy(() -> resolver("not a pem", github.apiBase(), null).validate(policy(42, CONTENTS_WRITE)))
        .isInstanceOfSatisfying(CredentialException.class, e -> assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_CONFIG_INVALID))
        .hasMessageContaining("not a PEM");
    assertThatThrownBy(() -> resolver(truncated, github.apiBase(), null).validate(policy(42, CONTENTS_WRITE)))
        .isInstanceOfSatisfying(CredentialException.class, e -> assertThat(e.retryable()).isFalse())
        .hasMessageContaining("malformed")
        .hasMessageNotContaining(truncated.substring(40, 80));
    assertThatThrownBy(() -> resolver(weak, github.apiBase(), null).validate(policy(42, CONTENTS_WRITE)))
        .isInstanceOfSatisfying(CredentialException.class, e -> assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_CONFIG_INVALID));
    assertThatThrownBy(() -> new GitHubAppCredentialResolver(Optional.empty(), Json.mapper(), Clock.systemUTC())
            .validate(policy(42, CONTENTS_WRITE)))
        .isInstanceOfSatisfying(CredentialException.class, e -> assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_CONFIG_MISSING));
    assertThatThrownBy(() -> resolver().validate(new ResolvedPolicy(CredentialPolicy.GITHUB_APP, "workspace", null, CONTENTS_WRITE)))
        .isInstanceOfSatisfying(CredentialException.class, e -> assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_CONFIG_MISSING))
        .hasMessageContaining("installation id");
    assertThatThrownBy(() -> new GitHubAppSettings("", "pem", null))
        .isInstanceOfSatisfying(CredentialException.class, e -> assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_CONFIG_MISSING));
    assertThatThrownBy(() -> new GitHubAppSettings("1", "pem", URI.create("ftp://x")))
        .isInstanceOfSatisfying(CredentialException.class, e -> assertThat(e.type()).isEqualTo(FailureType.CREDENTIAL_CONFIG_INVALID));
  }

  private static java.security.PrivateKey weakKey() {
    try {
      java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("RSA");
      generator.initialize(1024);
      return generator.generateKeyPair().getPrivate();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
