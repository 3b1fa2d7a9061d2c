package dev.kandev.recovery.activities.credentials.redemption;

import static dev.kandev.recovery.workflows.model.SessionState.FAILED;
import static dev.kandev.recovery.workflows.model.SessionState.STARTING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.credentials.IssuedToken;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.activities.testing.BrokerHarness;
import dev.kandev.recovery.activities.testing.TestDatabase;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Real git, the project's credential helper and the loopback redemption endpoint together. */
class CredentialRedemptionServerTest {
  @RegisterExtension @Order(1) final TestDatabase db = new TestDatabase();
  @RegisterExtension @Order(2) final BrokerHarness h = new BrokerHarness(db);
  @TempDir Path dir;

  private CredentialRedemptionServer server;
  private GitCredentialEnvironment environment;
  private final HttpClient http = HttpClient.newHttpClient();

  private record Run(int exit, String stdout, String stderr) {}

  @BeforeEach
  void setUp() {
    server = CredentialRedemptionServer.start(h.broker, 0, sessionId -> Optional.of(ProcessHandle.current()));
    environment = new GitCredentialEnvironment(server.url(), CredentialHelper.install(dir.resolve("bin")));
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  private IssuedToken lease() {
    return h.mintedToken();
  }

  /** {@code git credential fill} in a child with only the broker env (no user config, no prompts). */
  private Run gitCredentialFill(Map<String, String> env, String input) throws IOException, InterruptedException {
    return gitCredentialFill(env, input, git -> {});
  }

  /** {@code started} sees the git process before git reads its request. */
  private Run gitCredentialFill(Map<String, String> env, String input, java.util.function.Consumer<Process> started)
      throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder("git", "credential", "fill").directory(dir.toFile());
    builder.environment().clear();
    builder.environment().put("PATH", System.getenv("PATH"));
    builder.environment().put("HOME", dir.toString());
    builder.environment().put("GIT_CONFIG_NOSYSTEM", "1");
    builder.environment().putAll(env);
    Process git = builder.start();
    started.accept(git);
    git.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
    git.getOutputStream().close();
    assertThat(git.waitFor(30, TimeUnit.SECONDS)).as("git finished").isTrue();
    return new Run(git.exitValue(), new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
        new String(git.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  private static final String WIDGETS_REQUEST = "protocol=https\nhost=github.com\npath=acme/widgets.git\n\n";

  @Test
  void gitObtainsTheInstallationTokenThroughTheHelperAndTheEndpoint() throws Exception {
    IssuedToken token = lease();
    Map<String, String> env = environment.forTokens(List.of(token));

    Run run = gitCredentialFill(env, WIDGETS_REQUEST);

    assertThat(run.exit()).as(run.stderr()).isZero();
    String installationToken = h.github.issued().get(0).token();
    assertThat(run.stdout()).contains("username=x-access-token\n", "password=" + installationToken + "\n",
        "host=github.com\n", "path=acme/widgets.git\n");
    assertThat(env).containsEntry("GIT_TERMINAL_PROMPT", "0")
        .containsEntry("GIT_CONFIG_KEY_1", "credential.https://github.com.helper")
        .containsEntry("GIT_CONFIG_KEY_2", "credential.useHttpPath")
        .containsEntry("KANDEV_CREDENTIAL_BROKER_URL", server.url().toString());
    assertThat(h.db.fixtures().string("SELECT last_redeemed_at IS NOT NULL FROM credential_leases")).isEqualTo("t");
  }

  @Test
  void aRedemptionIsASpanOfTheTraceTheAgentsEnvironmentNames() throws Exception {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    GlobalOpenTelemetry.resetForTest(); // the earlier redemptions of this JVM fixed the no-op one
    OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .buildAndRegisterGlobal();
    try {
      IssuedToken token = lease();
      Map<String, String> env = new java.util.HashMap<>(environment.forTokens(List.of(token)));
      env.put("TRACEPARENT", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");

      Run run = gitCredentialFill(env, WIDGETS_REQUEST);
      // The server ends a redemption's span once its answer is sent, which the helper may outlive.
      awaitFinishedSpans(spans, 1);
      env.put("TRACEPARENT", "00-$(touch injected)-00f067aa0ba902b7-01");
      Run odd = gitCredentialFill(env, WIDGETS_REQUEST);

      assertThat(run.exit()).as(run.stderr()).isZero();
      assertThat(odd.exit()).as("a malformed TRACEPARENT is left out: %s", odd.stderr()).isZero();
      assertThat(dir.resolve("injected")).doesNotExist();
      List<SpanData> redeemed = awaitFinishedSpans(spans, 2);
      assertThat(redeemed).extracting(SpanData::getName).containsExactly("credential.redeem", "credential.redeem");
      SpanData joined = redeemed.get(0);
      assertThat(joined.getTraceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
      assertThat(joined.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
      assertThat(redeemed.get(1).getParentSpanContext().isValid()).isFalse();
      assertThat(joined.getAttributes().asMap()).containsEntry(AttributeKey.stringKey("kandev.credential.host"), "github.com")
          .containsEntry(AttributeKey.longKey("http.response.status_code"), 200L);
      String installationToken = h.github.issued().get(0).token();
      assertThat(joined.getAttributes().asMap().values()).map(String::valueOf)
          .noneMatch(v -> v.contains(token.token()) || v.contains(installationToken));
    } finally {
      GlobalOpenTelemetry.resetForTest();
    }
  }

  /**
   * The caller check (docs/credentials.md): the endpoint serves a lease only to the process tree of
   * the agent this worker runs for the lease's session, found from the connection's socket in /proc.
   */
  @Test
  void aLeaseRedeemsOnlyForTheProcessTreeOfTheSessionsAgent() throws Exception {
    IssuedToken token = h.mintedToken();
    AtomicReference<ProcessHandle> agent = new AtomicReference<>();
    Process unrelated = new ProcessBuilder("sleep", "60").start();
    try (CredentialRedemptionServer guarded =
        CredentialRedemptionServer.start(h.broker, 0, sessionId -> Optional.ofNullable(agent.get()))) {
      Map<String, String> env = new GitCredentialEnvironment(guarded.url(), CredentialHelper.install(dir.resolve("bin")))
          .forTokens(List.of(token));

      Run noAgent = gitCredentialFill(env, WIDGETS_REQUEST);
      agent.set(unrelated.toHandle());
      Run notInTree = gitCredentialFill(env, WIDGETS_REQUEST);
      Run asTheAgent = gitCredentialFill(env, WIDGETS_REQUEST, git -> agent.set(git.toHandle()));

      for (Run refused : List.of(noAgent, notInTree)) {
        assertThat(refused.exit()).isNotZero();
        assertThat(refused.stdout()).doesNotContain("password=");
        assertThat(refused.stderr()).contains("403", "redeems only for a process of session s1's agent")
            .doesNotContain(token.token());
      }
      assertThat(asTheAgent.exit()).as(asTheAgent.stderr()).isZero();
      assertThat(asTheAgent.stdout()).contains("password=" + h.github.issued().get(0).token());
      assertThat(h.github.calls()).as("GitHub is asked only for the agent's own request").isEqualTo(1);
    } finally {
      unrelated.destroyForcibly();
    }
  }

  @Test
  void gitGetsNothingOnceTheSessionIsTerminalAndSeesWhy() throws Exception {
    IssuedToken token = lease();
    h.moveSession(STARTING, FAILED);

    Run run = gitCredentialFill(environment.forTokens(List.of(token)), WIDGETS_REQUEST);

    assertThat(run.exit()).isNotZero();
    assertThat(run.stdout()).doesNotContain("password=");
    assertThat(run.stderr()).contains("403").contains("session is terminal").doesNotContain(token.token());
    assertThat(h.github.calls()).isZero();
  }

  @Test
  void gitGetsNothingForARevokedLease() throws Exception {
    IssuedToken token = lease();
    h.broker.revokeSession("s1");

    Run run = gitCredentialFill(environment.forTokens(List.of(token)), WIDGETS_REQUEST);

    assertThat(run.exit()).isNotZero();
    assertThat(run.stderr()).contains("401").contains("revoked");
  }

  @Test
  void withSeveralRepositoriesEachGetsItsOwnLease() throws Exception {
    h.rows.repository("r2", "ws-1", "github.com", "acme", "gadgets").link("t1", "r2", 1);
    java.util.List<IssuedToken> tokens = h.broker.issueForSession("s1", null).stream()
        .map(grant -> h.broker.mintToken(grant.leaseId())).toList();
    Map<String, String> env = environment.forTokens(tokens);

    Run widgets = gitCredentialFill(env, WIDGETS_REQUEST);
    Run gadgets = gitCredentialFill(env, "protocol=https\nhost=github.com\npath=acme/gadgets\n\n");
    Run other = gitCredentialFill(env, "protocol=https\nhost=github.com\npath=acme/other.git\n\n");

    assertThat(widgets.exit()).as(widgets.stderr()).isZero();
    assertThat(gadgets.exit()).as(gadgets.stderr()).isZero();
    assertThat(h.github.issued()).extracting(r -> r.repositories().get(0)).containsExactly("widgets", "gadgets");
    assertThat(widgets.stdout()).contains("password=" + h.github.issued().get(0).token());
    assertThat(gadgets.stdout()).contains("password=" + h.github.issued().get(1).token());
    assertThat(other.exit()).as("no helper for an unleased repository").isNotZero();
    assertThat(h.github.calls()).isEqualTo(2);
    assertThat(h.db.fixtures().count("SELECT count(*) FROM credential_leases WHERE last_redeemed_at IS NOT NULL"))
        .isEqualTo(2);
  }

  @Test
  void theHelperIsOnlyConfiguredForTheLeasesHost() throws Exception {
    Run run = gitCredentialFill(environment.forTokens(List.of(lease())), "protocol=https\nhost=gitlab.com\npath=acme/widgets.git\n\n");

    assertThat(run.exit()).as("no helper answers and prompts are off").isNotZero();
    assertThat(h.github.calls()).isZero();
  }

  @Test
  void theHelperFailsClearlyWithoutItsEnvironmentAndIgnoresStoreAndErase() throws Exception {
    Path helper = dir.resolve("bin").resolve(CredentialHelper.FILE_NAME);
    Process get = new ProcessBuilder(helper.toString(), "get").start();
    get.getOutputStream().close();
    assertThat(get.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(get.exitValue()).isNotZero();
    assertThat(new String(get.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
        .contains("KANDEV_CREDENTIAL_BROKER_URL is not set");

    Process store = new ProcessBuilder(helper.toString(), "store").start();
    store.getOutputStream().write("username=x\npassword=y\n".getBytes(StandardCharsets.UTF_8));
    store.getOutputStream().close();
    assertThat(store.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(store.exitValue()).isZero();
  }

  // --- the endpoint's answers to malformed or refused requests ---------------------------------

  private HttpResponse<String> post(String authorization, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(server.url()).POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void malformedRequestsAre400() throws Exception {
    String bearer = "Bearer " + lease().token();

    assertThat(post(null, WIDGETS_REQUEST).statusCode()).isEqualTo(400);
    assertThat(post("Basic abc", WIDGETS_REQUEST).statusCode()).isEqualTo(400);
    assertThat(post(bearer, "").statusCode()).isEqualTo(400);
    assertThat(post(bearer, "protocol=https\nhost=github.com\n").body()).contains("useHttpPath");
    assertThat(post(bearer, "this is not git\n").statusCode()).isEqualTo(400);
    assertThat(post(bearer, "protocol=http\nhost=github.com\npath=acme/widgets\n").body()).contains("only https");
    assertThat(post(bearer, "protocol=https\nhost=github.com\npath=acme/widgets/extra\n").statusCode()).isEqualTo(400);
    assertThat(post(bearer, "protocol=https\nhost=git@hub\npath=acme/widgets\n").statusCode()).isEqualTo(400);
    assertThat(post(bearer, "path=" + "x".repeat(CredentialRedemptionServer.MAX_BODY_BYTES)).statusCode()).isEqualTo(400);
    HttpResponse<String> get = http.send(HttpRequest.newBuilder(server.url()).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(h.github.calls()).isZero();
  }

  @Test
  void refusalsCarryAStatusAndAShortNonSecretReason() throws Exception {
    IssuedToken token = lease();
    String bearer = "Bearer " + token.token();

    HttpResponse<String> unknown = post("Bearer " + "B".repeat(43), WIDGETS_REQUEST);
    HttpResponse<String> otherRepo = post(bearer, "protocol=https\nhost=github.com\npath=acme/gadgets.git\n");
    h.github.failNext(503, 1);
    HttpResponse<String> unavailable = post(bearer, WIDGETS_REQUEST);
    h.github.failNext(404, 1);
    HttpResponse<String> rejected = post(bearer, WIDGETS_REQUEST);

    assertThat(unknown.statusCode()).isEqualTo(401);
    assertThat(unknown.body()).startsWith("error=CREDENTIAL_LEASE_INVALID");
    assertThat(otherRepo.statusCode()).isEqualTo(403);
    assertThat(unavailable.statusCode()).isEqualTo(503);
    assertThat(unavailable.body()).contains("CREDENTIAL_PROVIDER_UNAVAILABLE");
    assertThat(rejected.statusCode()).isEqualTo(502);
    for (HttpResponse<String> r : java.util.List.of(unknown, otherRepo, unavailable, rejected)) {
      assertThat(r.body()).doesNotContain(token.token()).doesNotContain("password=");
    }
    assertThat(post(bearer, WIDGETS_REQUEST).statusCode()).isEqualTo(200);
  }

  @Test
  void theChildEnvironmentRefusesANonLoopbackPlainHttpBroker() {
    Path helper = dir.resolve("bin").resolve(CredentialHelper.FILE_NAME);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new GitCredentialEnvironment(URI.create("http://example.com/v1/git-credential"), helper))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new GitCredentialEnvironment(URI.create("https://u:p@example.com/x"), helper))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Files.isExecutable(helper)).isTrue();
  }

  private static List<SpanData> awaitFinishedSpans(InMemorySpanExporter spans, int count) {
    return Await.until(spans::getFinishedSpanItems, finished -> finished.size() >= count, Duration.ofSeconds(10),
        count + " finished redemption span(s)");
  }
}
