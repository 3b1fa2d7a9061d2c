package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.TestDatabase;
import dev.kandev.recovery.worker.cli.ExitCodes;
import dev.kandev.recovery.worker.harness.FilesAsText;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.ListeningSockets;
import dev.kandev.recovery.worker.harness.ListeningSockets.Socket;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.interceptors.StepFreezeInterceptor;
import dev.kandev.recovery.workflows.model.SessionState;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a {@code dev} and a {@code worker} of the packaged jar expose, as real processes: the sockets
 * they (and their children: dev's Temporal server) listen on, and what of a database URL with a
 * password in it reaches any of their outputs.
 */
public class ExposureIT {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final String USERINFO_SECRET = "UsrInfoPw-7f3a9c";
  private static final String QUERY_SECRET = "QueryPw-2b8e41";

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();

  /**
   * Defaults, besides the ports (a test cannot take 7233): every socket of dev, its Temporal dev
   * server, the worker, their HTTP endpoints and credential endpoints is on loopback. A worker told
   * {@code KANDEV_HTTP_ADDRESS=0.0.0.0} shows that the reading sees any other address.
   */
  @Test
  void devAndWorkerStartedWithDefaultsListenOnLoopbackOnly() throws Exception {
    int devHttp = RealTemporalServer.freePort();
    int workerHttp = RealTemporalServer.freePort();
    KandevProcess dev = cluster.dev("dev-exposure", Map.of("KANDEV_HTTP_PORT", Integer.toString(devHttp)));
    KandevProcess worker = cluster.worker("worker-exposure", Map.of("KANDEV_HTTP_PORT", Integer.toString(workerHttp)));
    assertThat(get(devHttp, "/healthz").statusCode()).isEqualTo(200);
    assertThat(get(workerHttp, "/healthz").statusCode()).isEqualTo(200);

    List<Socket> devSockets = ListeningSockets.ofTree(dev.pid());
    System.out.println("dev and its children listen on: " + devSockets);
    assertThat(devSockets).extracting(Socket::port).as("dev's endpoint, its server's frontend and Web UI")
        .contains(devHttp, cluster.temporalPort, cluster.uiPort);
    assertThat(devSockets).as("a child of dev listens too: its Temporal dev server")
        .anyMatch(s -> s.pid() != dev.pid());
    assertThat(devSockets).allMatch(Socket::loopback, "is on loopback");
    assertThat(dev.output()).contains("HTTP         http://127.0.0.1:" + devHttp + "/metrics");

    List<Socket> workerSockets = ListeningSockets.ofTree(worker.pid());
    System.out.println("the worker listens on: " + workerSockets);
    assertThat(workerSockets).extracting(Socket::port).contains(workerHttp);
    assertThat(workerSockets).allMatch(Socket::loopback, "is on loopback");

    int openHttp = RealTemporalServer.freePort();
    KandevProcess open = cluster.worker("worker-open", Map.of("KANDEV_HTTP_PORT", Integer.toString(openHttp),
        "KANDEV_HTTP_ADDRESS", "0.0.0.0"));
    assertThat(ListeningSockets.ofTree(open.pid())).filteredOn(s -> s.port() == openHttp)
        .singleElement().satisfies(s -> assertThat(s.loopback()).as(s.toString()).isFalse());
  }

  /** The test hook is loud when it is on: a TEST HOOK line beside the banner and a WARN, once. */
  @Test
  void aWorkerWithTheStepFreezeHookSaysSoAtStart() throws Exception {
    cluster.dev("dev-hook");
    Path freeze = cluster.dir().resolve("freeze-steps");
    KandevProcess hooked = cluster.worker("worker-hook",
        Map.of("JAVA_TOOL_OPTIONS", "-D" + StepFreezeInterceptor.PROPERTY + "=" + freeze));
    KandevProcess plain = cluster.worker("worker-plain");

    String line = "TEST HOOK    -D" + StepFreezeInterceptor.PROPERTY + "=" + freeze + " is on";
    assertThat(hooked.output().lines().filter(l -> l.startsWith(line))).hasSize(1);
    assertThat(hooked.output().lines().filter(l -> l.contains(" WARN ") && l.contains(StepFreezeInterceptor.PROPERTY)))
        .hasSize(1);
    assertThat(plain.output()).doesNotContain("TEST HOOK", StepFreezeInterceptor.PROPERTY);
  }

  /**
   * A URL carrying a password in its userinfo and another in its query, through a dev and the CLI
   * on a PostgreSQL that accepts it and through worker starts a PostgreSQL refuses (nothing on the
   * port, a role that does not exist, a database that does not exist) and a URL of a refused form:
   * neither password appears in any output of the run (stdout, stderr, the files of the state and
   * log folders, the dev server's log, /readyz, /metrics).
   */
  @Test
  void aPasswordInTheDatabaseUrlAppearsInNoOutput() throws Exception {
    assertThat(TestDatabase.URL).startsWith("jdbc:postgresql://").doesNotContain("?");
    String hostAndDatabase = TestDatabase.URL.substring("jdbc:postgresql://".length());
    String url = "postgres://" + TestDatabase.USER + ":" + USERINFO_SECRET + "@" + hostAndDatabase
        + "?password=" + QUERY_SECRET + "&sslmode=disable";
    int http = RealTemporalServer.freePort();
    List<String> outputs = new ArrayList<>();

    KandevProcess dev = cluster.dev("dev-secret-url", Map.of("KANDEV_DB_URL", url, "KANDEV_HTTP_PORT", Integer.toString(http)));
    assertThat(dev.output()).as("the banner names the store, its secrets masked")
        .contains("PostgreSQL   jdbc:postgresql://" + hostAndDatabase + "?password=***&sslmode=*** (schema");
    HttpResponse<String> readyz = get(http, "/readyz");
    assertThat(readyz.body()).isEqualTo("ready\n");
    outputs.add(readyz.body());
    outputs.add(get(http, "/metrics").body());
    outputs.add(get(http, "/healthz").body());
    cluster.newSession("s-1", SessionState.CREATED);
    Map<String, String> cli = new HashMap<>(cluster.cliEnvironment());
    cli.put("KANDEV_DB_URL", url);
    KandevProcess.Result resume = KandevProcess.run(cli, cluster.logDir(), Duration.ofMinutes(2), "resume", "s-1", "--fresh");
    assertThat(resume.exitCode()).as(resume.output()).isZero();
    outputs.add(resume.output());

    Map<String, String> refused = new HashMap<>(cluster.environment("worker-refused"));
    refused.remove("KANDEV_DB_USER");
    refused.put("TEMPORAL_ADDRESS", cluster.temporalAddress());
    String closedPort = hostAndDatabase.replaceFirst(":\\d+/", ":" + RealTemporalServer.freePort() + "/");
    Map<String, String> cases = Map.of(
        "postgres://" + TestDatabase.USER + ":" + USERINFO_SECRET + "@" + closedPort + "?password=" + QUERY_SECRET,
        "cannot reach PostgreSQL at jdbc:postgresql://" + closedPort + "?password=***",
        "postgres://no_such_role_exposure:" + USERINFO_SECRET + "@" + hostAndDatabase + "?password=" + QUERY_SECRET,
        "refused the login",
        "postgres://" + TestDatabase.USER + ":" + USERINFO_SECRET + "@" + hostAndDatabase + "_no_such_db?password=" + QUERY_SECRET,
        "has no such database",
        "mysql://" + TestDatabase.USER + ":" + USERINFO_SECRET + "@db/x?password=" + QUERY_SECRET,
        "KANDEV_DB_URL must be");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      refused.put("KANDEV_DB_URL", c.getKey());
      KandevProcess.Result worker = KandevProcess.run(refused, cluster.logDir(), Duration.ofMinutes(2), "worker");
      assertThat(worker.exitCode()).as(worker.output()).isIn(ExitCodes.DATABASE_UNREACHABLE, ExitCodes.USAGE);
      assertThat(worker.output()).contains(c.getValue());
      outputs.add(worker.output());
    }

    dev.terminate(Duration.ofMinutes(1));
    outputs.addAll(FilesAsText.under(cluster.dir()));
    assertThat(outputs).as("stdout, stderr, logs, state files, /readyz, /metrics").hasSizeGreaterThan(10)
        .allSatisfy(output -> assertThat(output).doesNotContain(USERINFO_SECRET, QUERY_SECRET));
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20))
        .build(), HttpResponse.BodyHandlers.ofString());
  }
}
