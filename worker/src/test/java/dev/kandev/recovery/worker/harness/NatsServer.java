package dev.kandev.recovery.worker.harness;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code nats-server} (Debian's package, installed by scripts/setup; or {@code
 * KANDEV_NATS_SERVER}) on a loopback port, as a child process: Kandev's bus in the tests. Never
 * skipped: without the binary a test fails with the setup command.
 */
public final class NatsServer implements AutoCloseable {
  private static final List<Path> CANDIDATES = List.of(
      Promtool.REPOSITORY.resolve(".tools/nats-server/nats-server"), Path.of("/usr/sbin/nats-server"),
      Path.of("/usr/bin/nats-server"));

  private final int port;
  private final String user;
  private final String password;
  private final Path log;
  private final List<String> extraArgs = new ArrayList<>();
  private Process process;

  private NatsServer(int port, String user, String password) throws IOException {
    this.port = port;
    this.user = user;
    this.password = password;
    this.log = Files.createTempFile("nats-server", ".log");
  }

  /** A server on a free port that takes messages of at most {@code maxPayload} bytes. */
  public static NatsServer startWithMaxPayload(int maxPayload) throws IOException, InterruptedException {
    NatsServer server = new NatsServer(freePort(), null, null);
    Path config = Files.createTempFile("nats-server", ".conf");
    Files.writeString(config, "max_payload: " + maxPayload + "\n");
    server.extraArgs.addAll(List.of("-c", config.toString()));
    server.startProcess();
    return server;
  }

  /** A server on a free port, without authentication. */
  public static NatsServer start() throws IOException, InterruptedException {
    return start(freePort(), null, null);
  }

  /** A server on {@code port} that wants {@code user} and {@code password} (both null: none). */
  public static NatsServer start(int port, String user, String password) throws IOException, InterruptedException {
    NatsServer server = new NatsServer(port, user, password);
    server.startProcess();
    return server;
  }

  /** A port nothing listens on now (for a server started later, or never). */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  public static Path binary() {
    Optional<Path> given = Optional.ofNullable(System.getenv("KANDEV_NATS_SERVER")).filter(s -> !s.isBlank()).map(Path::of);
    if (given.isPresent()) {
      return given.get();
    }
    return CANDIDATES.stream().filter(Files::isExecutable).findFirst().orElseThrow(() -> new AssertionError(
        "this test publishes to a real nats-server and found none (" + CANDIDATES + "): run scripts/setup"
            + " (it installs Debian's nats-server), or set KANDEV_NATS_SERVER"));
  }

  private void startProcess() throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(binary().toString(), "-a", "127.0.0.1", "-p", Integer.toString(port)));
    if (user != null) {
      command.addAll(List.of("--user", user, "--pass", password));
    }
    command.addAll(extraArgs);
    process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError("nats-server exited with " + process.exitValue() + ": " + output());
      }
      if (output().contains("Server is ready") && accepts()) {
        return;
      }
      Thread.sleep(50);
    }
    close();
    throw new AssertionError("nats-server not ready on port " + port + " within 20 s: " + output());
  }

  private boolean accepts() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  public int port() {
    return port;
  }

  /** The URL a client uses, with the credentials if the server wants them. */
  public String url() {
    return "nats://" + (user == null ? "" : user + ":" + password + "@") + "127.0.0.1:" + port;
  }

  public String output() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** Subscribes to every subject ({@code >}) as Kandev's WebSocket broadcaster does. */
  public Subscriber subscribe() throws IOException, InterruptedException, java.util.concurrent.TimeoutException {
    Connection connection = Nats.connect(Options.builder().server(url()).connectionName("test-subscriber").build());
    Subscriber subscriber = new Subscriber(connection);
    Dispatcher dispatcher = connection.createDispatcher(subscriber.received::add);
    dispatcher.subscribe(">");
    connection.flush(Duration.ofSeconds(5));
    return subscriber;
  }

  /** What a subscription received, in order. */
  public static final class Subscriber implements AutoCloseable {
    private final Connection connection;
    private final BlockingQueue<Message> received = new LinkedBlockingQueue<>();

    private Subscriber(Connection connection) {
      this.connection = connection;
    }

    /** The next {@code count} messages, waiting at most {@code timeout} in all. */
    public List<Message> next(int count, Duration timeout) throws InterruptedException {
      List<Message> messages = new ArrayList<>();
      long deadline = System.nanoTime() + timeout.toNanos();
      while (messages.size() < count) {
        Message message = received.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (message == null) {
          throw new AssertionError("received " + messages.size() + " of " + count + " messages within " + timeout);
        }
        messages.add(message);
      }
      return messages;
    }

    /** Whatever else arrives within {@code quiet}. */
    public List<Message> more(Duration quiet) throws InterruptedException {
      List<Message> messages = new ArrayList<>();
      Message message;
      while ((message = received.poll(quiet.toMillis(), TimeUnit.MILLISECONDS)) != null) {
        messages.add(message);
      }
      return messages;
    }

    @Override
    public void close() throws InterruptedException {
      connection.close();
    }
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      ProcessStop.gracefully(process, Duration.ofSeconds(10));
    }
  }
}
