package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.acp.AcpTimeouts;
import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.credentials.GitHubAppSettings;
import dev.kandev.recovery.activities.runtime.NpmSettings;
import dev.kandev.recovery.activities.store.DatabaseSettings;
import dev.kandev.recovery.worker.limits.LaunchLimits;
import dev.kandev.recovery.workflows.RecoveryIds;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.resume.HostWait;
import dev.kandev.recovery.workflows.resume.LaunchHeartbeat;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * The worker's configuration, read from environment variables with defaults that work on a
 * developer machine with a local PostgreSQL (README "Configuration" lists them all).
 *
 * @param host this machine's name in {@code executors_running.host}; restart recovery resumes the
 *     sessions whose agents ran on it
 * @param workerInstance this worker process; differs from its predecessor's on the same host
 * @param agentsFile JSON agent profiles added to (or replacing) the built-in npm agents; null: none
 * @param credentialBrokerPort loopback port of the git credential redemption endpoint; 0: any free
 * @param agentReapInterval how often the worker looks for agents of its own that no session wants
 * @param stateDir where this process keeps what outlives it: its predecessor file, and for {@code dev}
 *     the Temporal dev server's database file and log
 * @param launchHeartbeatTimeout how long a launch may go without a heartbeat before the server fails
 *     it (see {@link LaunchHeartbeat}); applies to the resumes whose workflow tasks this worker runs
 * @param temporalClient how to reach Temporal (address, namespace, API key, TLS) as Temporal's own
 *     client configuration says; {@link #temporalAddress} and {@link #temporalNamespace} are its
 * @param httpPort port of the worker's HTTP endpoint ({@code /metrics}, {@code /healthz}, {@code
 *     /readyz}); empty: none
 * @param launchLimits how many launches and running agents this worker takes on at once
 * @param hostWait how long a resume's launch waits for a worker of its session's host (see {@link
 *     HostWait}); applies to the resumes whose workflow tasks this worker runs
 */
public record Settings(
    DatabaseSettings database,
    String temporalAddress,
    String temporalNamespace,
    String taskQueue,
    String host,
    String workerInstance,
    boolean registerSearchAttributes,
    NpmSettings npm,
    Path agentsFile,
    AcpTimeouts acpTimeouts,
    PermissionPolicy permissionPolicy,
    Optional<GitHubAppSettings> gitHubApp,
    int credentialBrokerPort,
    Duration resumeLockTtl,
    Duration agentReapInterval,
    Path stateDir,
    Duration launchHeartbeatTimeout,
    OptionalInt httpPort,
    TemporalClientConfig temporalClient,
    LaunchLimits launchLimits,
    Duration hostWait) {

  public static Settings fromEnvironment(Map<String, String> env) {
    requireKnownLogFormat(env);
    AcpTimeouts timeouts = AcpTimeouts.defaults()
        .withInitialize(seconds(env, "KANDEV_ACP_INITIALIZE_TIMEOUT_SECONDS", 180))
        .withSessionLoad(seconds(env, "KANDEV_ACP_SESSION_LOAD_TIMEOUT_SECONDS", 120))
        .withSessionNew(seconds(env, "KANDEV_ACP_SESSION_NEW_TIMEOUT_SECONDS", 120));
    String agentsFile = env.getOrDefault("KANDEV_AGENTS_FILE", "");
    TemporalClientConfig temporalClient = TemporalClientConfig.load(env);
    return new Settings(
        new DatabaseSettings(
            env.getOrDefault("KANDEV_DB_URL", "jdbc:postgresql://127.0.0.1:5432/postgres"),
            env.getOrDefault("KANDEV_DB_USER", "postgres"),
            env.getOrDefault("KANDEV_DB_PASSWORD", ""),
            env.getOrDefault("KANDEV_DB_SCHEMA", "kandev_recovery"),
            integer(env, "KANDEV_DB_POOL_SIZE", 10)),
        temporalClient.address(),
        temporalClient.namespace(),
        env.getOrDefault("KANDEV_TASK_QUEUE", RecoveryTaskQueue.DEFAULT),
        host(env),
        env.getOrDefault("KANDEV_WORKER_INSTANCE", newWorkerInstance()),
        Boolean.parseBoolean(env.getOrDefault("KANDEV_REGISTER_SEARCH_ATTRIBUTES", "false")),
        NpmSettings.fromEnvironment(env),
        agentsFile.isBlank() ? null : Path.of(agentsFile),
        timeouts,
        PermissionPolicy.valueOf(env.getOrDefault("KANDEV_AGENT_PERMISSION_POLICY", "reject").toUpperCase(Locale.ROOT)),
        GitHubAppSettings.fromEnvironment(env),
        integer(env, "KANDEV_CREDENTIAL_BROKER_PORT", 0),
        Duration.ofMinutes(integer(env, "KANDEV_RESUME_LOCK_TTL_MINUTES", 15)),
        positiveSeconds(env, "KANDEV_AGENT_REAP_INTERVAL_SECONDS", 30),
        stateDir(env),
        launchHeartbeatTimeout(env),
        port(env, "KANDEV_HTTP_PORT"),
        temporalClient,
        new LaunchLimits(integer(env, "KANDEV_MAX_CONCURRENT_LAUNCHES", LaunchLimits.DEFAULT_MAX_LAUNCHES),
            integer(env, "KANDEV_MAX_RUNNING_AGENTS", LaunchLimits.DEFAULT_MAX_AGENTS)),
        positiveSeconds(env, "KANDEV_HOST_WAIT_SECONDS", (int) HostWait.DEFAULT.toSeconds()));
  }

  public static Settings fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /** The same settings with another npm (tests use a private cache and registry). */
  public Settings withNpm(NpmSettings other) {
    return new Settings(database, temporalAddress, temporalNamespace, taskQueue, host, workerInstance,
        registerSearchAttributes, other, agentsFile, acpTimeouts, permissionPolicy, gitHubApp, credentialBrokerPort,
        resumeLockTtl, agentReapInterval, stateDir, launchHeartbeatTimeout, httpPort, temporalClient, launchLimits,
        hostWait);
  }

  /** Where the process of {@code command} ({@code dev}, {@code worker}) records itself for its successor. */
  public Path pidFile(String command) {
    return stateDir.resolve(command + ".pid");
  }

  /** The port part of {@link #temporalAddress()}. */
  public int temporalPort() {
    int colon = temporalAddress.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("TEMPORAL_ADDRESS '" + temporalAddress + "' must be host:port");
    }
    return Integer.parseInt(temporalAddress.substring(colon + 1));
  }

  /** {@code KANDEV_STATE_DIR}, else {@code $XDG_STATE_HOME/kandev-recovery}, else {@code ~/.local/state/kandev-recovery}. */
  private static Path stateDir(Map<String, String> env) {
    String explicit = env.get("KANDEV_STATE_DIR");
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit.trim());
    }
    String xdg = env.get("XDG_STATE_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg.trim()) : Path.of(System.getProperty("user.home"), ".local", "state");
    return base.resolve("kandev-recovery");
  }

  /** KANDEV_LOG_FORMAT is read by logback.xml (logback-text.xml, logback-json.xml); any other value would log nothing. */
  static void requireKnownLogFormat(Map<String, String> env) {
    String format = env.getOrDefault("KANDEV_LOG_FORMAT", "text");
    if (!format.equals("text") && !format.equals("json")) {
      throw new IllegalArgumentException("KANDEV_LOG_FORMAT must be text or json, got '" + format + "'");
    }
  }

  /** A TCP port (0: any free one), or empty when the variable is unset. */
  private static OptionalInt port(Map<String, String> env, String name) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return OptionalInt.empty();
    }
    int port = integer(env, name, 0);
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(name + " must be a port (0 to 65535), got " + port);
    }
    return OptionalInt.of(port);
  }

  private static int integer(Map<String, String> env, String name, int fallback) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      return fallback;
    }
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, got '" + value + "'");
    }
  }

  private static Duration seconds(Map<String, String> env, String name, int fallback) {
    return Duration.ofSeconds(integer(env, name, fallback));
  }

  private static Duration launchHeartbeatTimeout(Map<String, String> env) {
    String name = "KANDEV_LAUNCH_HEARTBEAT_TIMEOUT_SECONDS";
    Duration value = seconds(env, name, (int) LaunchHeartbeat.TIMEOUT.toSeconds());
    if (value.compareTo(LaunchHeartbeat.MINIMUM_TIMEOUT) < 0) {
      throw new IllegalArgumentException(name + " must be at least " + LaunchHeartbeat.MINIMUM_TIMEOUT.toSeconds()
          + " (a heartbeat is sent every " + LaunchHeartbeat.SEND_EVERY.toSeconds() + " s), got " + value.toSeconds());
    }
    return value;
  }

  private static Duration positiveSeconds(Map<String, String> env, String name, int fallback) {
    Duration value = seconds(env, name, fallback);
    if (value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException(name + " must be at least 1, got " + value.toSeconds());
    }
    return value;
  }

  /**
   * {@code pid@host} plus a suffix of its own: a restarted worker must not look like its
   * predecessor, or restart recovery would not see the agents that one lost — in a container the
   * pid (1) and the host name survive a restart.
   */
  private static String newWorkerInstance() {
    return ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** KANDEV_HOST names the host's task queues ({@code <queue>@<host>}): the rules of an id apply. */
  private static String host(Map<String, String> env) {
    String host = env.getOrDefault("KANDEV_HOST", localHostName()).trim();
    RecoveryIds.problem("KANDEV_HOST", host).ifPresent(problem -> {
      throw new IllegalArgumentException(problem);
    });
    if (host.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("KANDEV_HOST must not contain white space, got '" + host + "'");
    }
    return host;
  }

  private static String localHostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
