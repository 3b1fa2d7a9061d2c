package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.worker.cli.ExitCodes;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import dev.kandev.recovery.worker.harness.KandevProcess;
import dev.kandev.recovery.worker.harness.RealTemporalServer;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.worker.harness.TlsProxy;
import dev.kandev.recovery.workflows.model.SessionState;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Worker and CLI through a TLS-terminating gRPC proxy: mTLS with Temporal's TEMPORAL_TLS_* settings, and an API key. */
public class TemporalTlsIT {
  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();
  private TlsProxy proxy;

  /** A Temporal server (under the cluster's folder: the cluster stops it after its processes) behind the proxy. */
  @BeforeEach
  void setUp() {
    DevTemporalServer.start(RealTemporalServer.cli(), cluster.dir().resolve("temporal"), cluster.temporalPort, cluster.uiPort);
    proxy = TlsProxy.start(cluster.dir().resolve("proxy"), cluster.temporalAddress());
  }

  /** nginx's master stops its workers; killed, they would keep the ports. */
  @AfterEach
  void stopProxy() {
    if (proxy != null) {
      proxy.close();
    }
  }

  /** The settings of a process reaching Temporal through the mTLS port with client certificate {@code client}. */
  private Map<String, String> mtls(String instance, String client) {
    Map<String, String> env = new HashMap<>(cluster.environment(instance));
    env.put("TEMPORAL_ADDRESS", "127.0.0.1:" + proxy.mtlsPort);
    env.put("TEMPORAL_TLS_SERVER_CA_CERT_PATH", proxy.file("ca.pem").toString());
    env.put("TEMPORAL_TLS_SERVER_NAME", TlsProxy.SERVER_NAME);
    if (client != null) {
      env.put("TEMPORAL_TLS_CLIENT_CERT_PATH", proxy.file(client + ".pem").toString());
      env.put("TEMPORAL_TLS_CLIENT_KEY_PATH", proxy.file(client + ".key").toString());
    }
    return env;
  }

  private KandevProcess.Result cli(Map<String, String> env, String... args) {
    return KandevProcess.run(env, cluster.logDir(), Duration.ofMinutes(2), args);
  }

  @Test
  void workerAndCliWorkThroughTheMtlsProxy() {
    cluster.started("worker-tls", KandevProcess.start("worker-tls", mtls("worker-tls", "client"), cluster.logDir(), "worker"));
    cluster.newSession("s-1", SessionState.CREATED);

    KandevProcess.Result resume = cli(mtls("cli", "client"), "resume", "s-1", "--fresh");

    assertThat(resume.exitCode()).as(resume.output()).isZero();
    assertThat(resume.output()).contains("outcome: STARTED_FRESH — session s-1 is WAITING_FOR_INPUT");
    assertThat(cluster.state("s-1")).isEqualTo(SessionState.WAITING_FOR_INPUT);
  }

  @Test
  void aMissingOrWrongClientCertificateFailsAtStartWithOneLine() {
    for (String client : new String[] {null, "rogue-client"}) {
      KandevProcess.Result worker = cli(mtls("worker-" + client, client), "worker");

      assertThat(worker.exitCode()).as(worker.output()).isEqualTo(ExitCodes.TEMPORAL_UNREACHABLE);
      assertThat(worker.output()).doesNotContain("\tat ", "Exception");
      assertThat(worker.output().strip().lines().filter(l -> l.startsWith("kandev-recovery worker: "))).singleElement()
          .asString().contains("127.0.0.1:" + proxy.mtlsPort, "TEMPORAL_TLS_CLIENT_CERT_PATH");
    }
  }

  @Test
  void theApiKeyIsSentAsTheSdksSendItAndAWrongOneIsOneLine() {
    Map<String, String> env = new HashMap<>(cluster.environment("cli"));
    env.put("TEMPORAL_ADDRESS", "127.0.0.1:" + proxy.apiKeyPort);
    env.put("TEMPORAL_TLS_SERVER_CA_CERT_PATH", proxy.file("ca.pem").toString());
    env.put("TEMPORAL_TLS_SERVER_NAME", TlsProxy.SERVER_NAME);
    env.put("TEMPORAL_API_KEY", proxy.apiKey);

    KandevProcess.Result listed = cli(env, "resumes");
    env.put("TEMPORAL_API_KEY", "wrong-key");
    KandevProcess.Result refused = cli(env, "resumes");

    assertThat(listed.exitCode()).as(listed.output()).isZero();
    assertThat(listed.output()).contains("0 resume(s)");
    assertThat(refused.exitCode()).as(refused.output()).isEqualTo(ExitCodes.TEMPORAL_UNREACHABLE);
    assertThat(refused.output().strip().lines()).singleElement().asString()
        .contains("127.0.0.1:" + proxy.apiKeyPort, "TEMPORAL_API_KEY").doesNotContain("wrong-key");
  }
}
