package dev.kandev.recovery.activities.acp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JSON-RPC 2.0 over an agent's stdio, one JSON object per line. Responses complete pending
 * requests; notifications are delivered on the reader thread in arrival order, so every
 * notification sent before a response has been handled when that response's future completes
 * (what makes a {@code session/load} replay finish before the load returns). Agent → client
 * requests run off the reader thread and are always answered, with an error if need be.
 */
public final class AcpConnection implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AcpConnection.class);

  /** Handles the agent's notifications ({@code session/update}, ...). */
  @FunctionalInterface
  public interface NotificationHandler {
    void onNotification(String method, JsonNode params);
  }

  /** Answers an agent → client request; throw {@link AcpRemoteException} for an error answer. */
  @FunctionalInterface
  public interface RequestHandler {
    JsonNode onRequest(String method, JsonNode params) throws AcpRemoteException;
  }

  private final String name;
  private final BufferedReader in;
  private final OutputStream out;
  private final ObjectMapper json;
  private final NotificationHandler notifications;
  private final RequestHandler requests;
  private final Map<Long, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final AtomicLong nextId = new AtomicLong(1);
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private final ExecutorService requestExecutor;
  private final Thread reader;

  public AcpConnection(
      String name,
      InputStream agentStdout,
      OutputStream agentStdin,
      ObjectMapper json,
      NotificationHandler notifications,
      RequestHandler requests) {
    this.name = name;
    this.in = new BufferedReader(new InputStreamReader(agentStdout, StandardCharsets.UTF_8));
    this.out = agentStdin;
    this.json = json;
    this.notifications = notifications;
    this.requests = requests;
    this.requestExecutor =
        Executors.newCachedThreadPool(r -> daemon(r, "acp-requests-" + name));
    this.reader = daemon(this::readLoop, "acp-reader-" + name);
    this.reader.start();
  }

  private static Thread daemon(Runnable r, String threadName) {
    Thread t = new Thread(r, threadName);
    t.setDaemon(true);
    return t;
  }

  /**
   * Sends a request and waits for its answer.
   *
   * @throws AcpRemoteException the agent answered with an error
   * @throws AcpTransportClosedException the agent's stdout closed before the answer
   * @throws TimeoutException no answer within {@code timeout} (the request stays abandoned)
   */
  public JsonNode request(String method, JsonNode params, Duration timeout)
      throws AcpRemoteException, AcpTransportClosedException, TimeoutException, InterruptedException {
    return await(requestAsync(method, params), method, timeout);
  }

  /**
   * Sends a request; the future completes with the result, or exceptionally with an {@link
   * AcpRemoteException} or {@link AcpTransportClosedException}.
   */
  public CompletableFuture<JsonNode> requestAsync(String method, JsonNode params) {
    long id = nextId.getAndIncrement();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    pending.put(id, answer);
    if (closed.isDone()) {
      pending.remove(id);
      return CompletableFuture.failedFuture(
          new AcpTransportClosedException(name + ": transport closed before " + method + " was sent"));
    }
    ObjectNode message = json.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
    message.set("params", params);
    try {
      write(message);
    } catch (IOException e) {
      pending.remove(id);
      return CompletableFuture.failedFuture(
          new AcpTransportClosedException(name + ": could not send " + method + ": " + e.getMessage(), e));
    }
    return answer.thenCompose(response -> {
      JsonNode error = response.get("error");
      if (error != null && !error.isNull()) {
        return CompletableFuture.failedFuture(new AcpRemoteException(method, AcpError.from(error)));
      }
      return CompletableFuture.completedFuture(response.path("result"));
    });
  }

  /** Waits for a {@link #requestAsync} answer, unwrapping its failure. */
  public JsonNode await(CompletableFuture<JsonNode> answer, String method, Duration timeout)
      throws AcpRemoteException, AcpTransportClosedException, TimeoutException, InterruptedException {
    try {
      return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AcpRemoteException remote) {
        throw new AcpRemoteException(method, remote.error());
      }
      if (e.getCause() instanceof AcpTransportClosedException) {
        throw new AcpTransportClosedException(
            name + ": transport closed before " + method + " was answered", e.getCause());
      }
      throw new AcpTransportClosedException(name + ": " + method + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new TimeoutException(name + ": " + method + " was not answered within " + timeout);
    }
  }

  public boolean isClosed() {
    return closed.isDone();
  }

  /** One JSON-RPC message, one line. (The tests' client notifications, {@code AcpNotifications}, send theirs here.) */
  synchronized void write(JsonNode message) throws IOException {
    out.write(json.writeValueAsBytes(message));
    out.write('\n');
    out.flush();
  }

  private void readLoop() {
    try {
      String line;
      while ((line = in.readLine()) != null) {
        if (!line.isBlank()) {
          dispatch(line);
        }
      }
    } catch (IOException e) {
      log.debug("{}: reading agent stdout failed: {}", name, e.getMessage());
    } finally {
      try {
        in.close();
      } catch (IOException e) {
        log.debug("{}: closing agent stdout: {}", name, e.getMessage());
      }
      closed.complete(null);
      AcpTransportClosedException eof = new AcpTransportClosedException(name + ": agent stdout closed");
      pending.values().forEach(f -> f.completeExceptionally(eof));
      pending.clear();
      requestExecutor.shutdown();
    }
  }

  private void dispatch(String line) {
    JsonNode message;
    try {
      message = json.readTree(line);
    } catch (IOException e) {
      log.warn("{}: agent wrote a line that is not JSON ({} chars); ignored", name, line.length());
      return;
    }
    if (!message.isObject()) {
      log.warn("{}: agent wrote a JSON value that is not an object; ignored", name);
      return;
    }
    JsonNode method = message.get("method");
    JsonNode id = message.get("id");
    if (method == null) {
      if (id != null && id.canConvertToLong()) {
        CompletableFuture<JsonNode> answer = pending.remove(id.asLong());
        if (answer != null) {
          answer.complete(message);
        } else {
          log.debug("{}: answer to unknown or abandoned request {}", name, id);
        }
      }
      return;
    }
    JsonNode params = message.path("params");
    if (id == null || id.isNull()) {
      try {
        notifications.onNotification(method.asText(), params);
      } catch (RuntimeException e) {
        log.warn("{}: handling notification {} failed", name, method.asText(), e);
      }
      return;
    }
    requestExecutor.execute(() -> answer(id, method.asText(), params));
  }

  private void answer(JsonNode id, String method, JsonNode params) {
    ObjectNode response = json.createObjectNode().put("jsonrpc", "2.0");
    response.set("id", id);
    try {
      response.set("result", requests.onRequest(method, params));
    } catch (AcpRemoteException e) {
      response.set("error", errorNode(e.error()));
    } catch (RuntimeException e) {
      log.warn("{}: answering {} failed", name, method, e);
      response.set("error", errorNode(new AcpError(AcpError.INTERNAL_ERROR, "Internal error", null)));
    }
    try {
      write(response);
    } catch (IOException e) {
      log.debug("{}: could not answer {}: {}", name, method, e.getMessage());
    }
  }

  private ObjectNode errorNode(AcpError error) {
    ObjectNode node = json.createObjectNode().put("code", error.code()).put("message", error.message());
    if (error.data() != null) {
      node.set("data", error.data());
    }
    return node;
  }

  /** Closes the agent's stdin, the polite way to ask an ACP agent to exit. */
  @Override
  public void close() {
    try {
      out.close();
    } catch (IOException e) {
      log.debug("{}: closing agent stdin: {}", name, e.getMessage());
    }
  }
}
