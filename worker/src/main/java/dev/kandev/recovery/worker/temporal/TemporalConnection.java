package dev.kandev.recovery.worker.temporal;

import com.uber.m3.tally.Scope;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.tracing.Tracing;
import dev.kandev.recovery.workflows.client.RecoveryDataConverter;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A client connection to the Temporal server of the settings. Its identity is the worker instance,
 * so the Web UI names the worker that ran each activity attempt, as executors_running does; its
 * data converter (also the worker's) is the contract's {@link RecoveryDataConverter}.
 */
public final class TemporalConnection implements AutoCloseable {
  /** A refused connection is retried this long (a server that is just starting), then it is unreachable. */
  private static final Duration REFUSED_FOR = Duration.ofSeconds(1);
  /**
   * A server that accepted the connection but answers slowly — a busy machine, many CLI processes
   * starting at once — is waited for this long. The SDK's own first call (server capabilities) gets
   * as long: its default, 5 s, failed 13 of 20 simultaneous resume commands with DEADLINE_EXCEEDED.
   */
  private static final Duration SLOW_FOR = Duration.ofSeconds(60);
  private static final Duration ATTEMPT = Duration.ofSeconds(5);

  public final WorkflowServiceStubs service;
  public final WorkflowClient client;

  private TemporalConnection(WorkflowServiceStubs service, String namespace, String identity) {
    this.service = service;
    this.client = WorkflowClient.newInstance(service, WorkflowClientOptions.newBuilder()
        .setNamespace(namespace)
        .setIdentity(identity)
        .setDataConverter(RecoveryDataConverter.INSTANCE)
        .setInterceptors(Tracing.clientInterceptors())
        .build());
  }

  /** A plaintext connection to {@code target}. */
  public static TemporalConnection open(String target, String namespace, String identity) {
    return open(target, namespace, identity, null);
  }

  /** A plaintext connection to {@code target}, the SDK's meters reported to {@code metricsScope} (null: none). */
  public static TemporalConnection open(String target, String namespace, String identity, Scope metricsScope) {
    return open(WorkflowServiceStubsOptions.newBuilder().setTarget(target), namespace, identity, metricsScope);
  }

  /** With the SDK's meters reported to {@code metricsScope} (null: none). */
  private static TemporalConnection open(
      WorkflowServiceStubsOptions.Builder options, String namespace, String identity, Scope metricsScope) {
    options.setSystemInfoTimeout(SLOW_FOR);
    if (metricsScope != null) {
      options.setMetricsScope(metricsScope);
    }
    return new TemporalConnection(WorkflowServiceStubs.newServiceStubs(options.build()), namespace, identity);
  }

  /**
   * The connection of the settings, once the server answered and has the namespace; else a {@link
   * TemporalUnreachableException} within a few seconds that says what to start or set.
   */
  public static TemporalConnection open(Settings settings) {
    return open(settings, null);
  }

  /** The same, with the SDK's meters reported to {@code metricsScope} (null: none). */
  public static TemporalConnection open(Settings settings, Scope metricsScope) {
    acceptsConnections(settings.temporalAddress());
    TemporalConnection connection = open(settings.temporalClient().stubsOptions(), settings.temporalNamespace(),
        settings.workerInstance(), metricsScope);
    try {
      connection.await(settings.temporalAddress(), settings.temporalNamespace(), settings.temporalClient().tls());
      return connection;
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  private void await(String address, String namespace, boolean tls) {
    long start = System.nanoTime();
    while (true) {
      try {
        service.blockingStub().withDeadlineAfter(ATTEMPT.toMillis(), TimeUnit.MILLISECONDS)
            .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
        break;
      } catch (StatusRuntimeException e) {
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        Status.Code code = e.getStatus().getCode();
        boolean retry = code == Status.Code.UNAVAILABLE ? waited.compareTo(REFUSED_FOR) < 0
            : code == Status.Code.DEADLINE_EXCEEDED && waited.compareTo(SLOW_FOR) < 0;
        if (!retry) {
          throw new TemporalUnreachableException("cannot reach Temporal at " + address + ": " + reason(e) + ". "
              + hint(code, tls, address));
        }
        pause();
      }
    }
    try {
      service.blockingStub().withDeadlineAfter(SLOW_FOR.toMillis(), TimeUnit.MILLISECONDS)
          .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace(namespace).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        throw new TemporalUnreachableException("the Temporal server at " + address + " has no namespace '" + namespace
            + "'. Create it (temporal operator namespace create --namespace " + namespace + " --address " + address
            + ") or set TEMPORAL_NAMESPACE");
      }
      throw new TemporalUnreachableException("cannot use namespace '" + namespace + "' on the Temporal server at "
          + address + ": " + reason(e) + ". " + hint(e.getStatus().getCode(), tls, address));
    }
  }

  /**
   * A plain TCP connect first: a refused or unknown address fails here in a moment, where gRPC would
   * go through its reconnect backoff; a server that is just starting gets {@link #REFUSED_FOR}.
   */
  private static void acceptsConnections(String address) {
    int colon = address.lastIndexOf(':');
    String host = colon < 0 ? address : address.substring(0, colon);
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (RuntimeException e) {
      throw new TemporalUnreachableException("TEMPORAL_ADDRESS '" + address + "' must be host:port");
    }
    long start = System.nanoTime();
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), (int) ATTEMPT.toMillis());
        return;
      } catch (IOException e) {
        boolean refused = e instanceof ConnectException;
        if (!refused || Duration.ofNanos(System.nanoTime() - start).compareTo(REFUSED_FOR) >= 0) {
          String why = refused ? "Connection refused"
              : e instanceof UnknownHostException ? "unknown host " + host : String.valueOf(e.getMessage());
          throw unreachable(address, why);
        }
        pause();
      }
    }
  }

  private static TemporalUnreachableException unreachable(String address, String why) {
    return new TemporalUnreachableException("cannot reach Temporal at " + address + ": " + why + ". " + startOne(address));
  }

  private static String startOne(String address) {
    return "Start a Temporal server there (temporal server start-dev --port " + port(address)
        + ", or kandev-recovery dev), or set TEMPORAL_ADDRESS to one";
  }

  /** What to check, for a server (or a proxy in front of it) that took the connection but refused the call. */
  private static String hint(Status.Code code, boolean tls, String address) {
    if (code == Status.Code.UNAUTHENTICATED || code == Status.Code.PERMISSION_DENIED) {
      return "The server refused the credentials: check TEMPORAL_API_KEY and the client certificate"
          + " (TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH)";
    }
    if (tls) {
      return "Check the client certificate and key (TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH) and"
          + " the server's CA and name (TEMPORAL_TLS_SERVER_CA_CERT_PATH, TEMPORAL_TLS_SERVER_NAME)";
    }
    return code == Status.Code.UNAVAILABLE ? startOne(address)
        : "Is it a Temporal frontend? A TLS endpoint needs TEMPORAL_TLS=true (or a TEMPORAL_TLS_* setting)";
  }

  /** The root cause's message (e.g. "Connection refused"), else the status. */
  private static String reason(StatusRuntimeException e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != e && root.getMessage() != null) {
      // netty's native transport says "finishConnect(..) failed: Connection refused"
      return root.getMessage().contains("Connection refused") ? "Connection refused" : root.getMessage();
    }
    String description = e.getStatus().getDescription();
    String firstLine = description == null ? "" : description.lines().findFirst().orElse("").strip();
    return e.getStatus().getCode() + (firstLine.isEmpty() ? "" : ": " + firstLine);
  }

  private static String port(String address) {
    int colon = address.lastIndexOf(':');
    return colon < 0 ? "7233" : address.substring(colon + 1);
  }

  private static void pause() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TemporalUnreachableException("interrupted while connecting to Temporal");
    }
  }

  @Override
  public void close() {
    service.shutdown();
  }
}
