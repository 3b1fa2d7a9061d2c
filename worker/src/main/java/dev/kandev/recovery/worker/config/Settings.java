package dev.kandev.recovery.worker.config;

import dev.kandev.recovery.activities.acp.AcpTimeouts;
import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.agent.AgentHostSettings;
import dev.kandev.recovery.activities.credentials.github.GitHubAppSettings;
import dev.kandev.recovery.activities.runtime.NpmSettings;
import dev.kandev.recovery.activities.store.DatabaseSettings;
import dev.kandev.recovery.worker.dev.DevSettings;
import dev.kandev.recovery.worker.events.KandevBusRelayOwner;
import dev.kandev.recovery.worker.events.KandevBusSettings;
import dev.kandev.recovery.worker.limits.LaunchLimits;
import dev.kandev.recovery.worker.retention.RetentionSettings;
import dev.kandev.recovery.workflows.HostWaitBounds;
import dev.kandev.recovery.workflows.RecoveryIds;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.resume.LaunchHeartbeat;
import dev.kandev.recovery.workflows.retention.RetentionPolicy;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's configuration, read from environment variables with defaults that work on a
 * developer machine with a local PostgreSQL (docs/configuration.md lists them all). This is the
 * only code that reads the environment; the parts get what they need from here as values. A bad
 * value fails here, naming the variable, the value and what is expected.
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
 * @param httpAddress the IP address that endpoint listens on: loopback unless {@code KANDEV_HTTP_ADDRESS}
 *     says otherwise (a container sets {@code 0.0.0.0})
 * @param launchLimits how many launches and running agents this worker takes on at once
 * @param hostWait how long a resume's launch waits for a worker of its session's host (see {@link
 *     HostWaitBounds}); applies to the resumes whose workflow tasks this worker runs
 * @param agentEnvironment the worker's values of the variables every agent inherits (see {@link
 *     AgentHostSettings#inheritedFrom}); read once here, nothing else of the environment reaches an agent
 * @param dev what only {@code dev} reads: the Temporal CLI and whether a server is given
 * @param versioning the Worker Deployment Version the worker polls as, if versioning is on ({@code worker} only)
 * @param kandevBus Kandev's NATS bus, to which the worker relays our outbox of Kandev's events; empty: none
 * @param launchAdapter who launches the agents of {@link #host}: this worker, or Kandev's Go launch worker
 * @param kandevBusRelay who publishes that outbox: the worker (to {@code kandevBus}) or Kandev's own process
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
    String httpAddress,
    TemporalClientConfig temporalClient,
    LaunchLimits launchLimits,
    Duration hostWait,
    Map<String, String> agentEnvironment,
    DevSettings dev,
    WorkerVersioning versioning,
    RetentionSettings retention,
    Optional<KandevBusSettings> kandevBus,
    LaunchAdapter launchAdapter,
    KandevBusRelayOwner kandevBusRelay) {

  private static final Logger log = LoggerFactory.getLogger(Settings.class);
  /** Where the HTTP endpoint listens unless KANDEV_HTTP_ADDRESS says otherwise: this machine only. */
  public static final String DEFAULT_HTTP_ADDRESS = "127.0.0.1";

  /** Reads {@code env}, the worker's whole environment; a deprecated variable is warned of in the log. */
  public static Settings fromEnvironment(Map<String, String> env) {
    return fromEnvironment(env, warning -> log.warn(warning));
  }

  /** The same, telling {@code warnings} of each deprecated variable that is set. */
  static Settings fromEnvironment(Map<String, String> given, Consumer<String> warnings) {
    Map<String, String> environment = SecretFiles.resolved(given);
    EnvironmentVariables env = new EnvironmentVariables(environment, warnings);
    requireKnownLogFormat(env);
    AcpTimeouts timeouts = AcpTimeouts.defaults()
        .withInitialize(env.positiveSeconds("KANDEV_ACP_INITIALIZE_TIMEOUT_SECONDS", Duration.ofSeconds(180)))
        .withSessionLoad(env.positiveSeconds("KANDEV_ACP_SESSION_LOAD_TIMEOUT_SECONDS", Duration.ofSeconds(120)))
        .withSessionNew(env.positiveSeconds("KANDEV_ACP_SESSION_NEW_TIMEOUT_SECONDS", Duration.ofSeconds(120)));
    TemporalClientConfig temporalClient = TemporalClientConfig.load(environment);
    return new Settings(
        DatabaseVariables.read(env),
        temporalAddress(temporalClient),
        temporalClient.namespace(),
        env.text("KANDEV_TASK_QUEUE", RecoveryTaskQueue.DEFAULT),
        host(env),
        env.text("KANDEV_WORKER_INSTANCE").orElseGet(Settings::newWorkerInstance),
        env.bool("KANDEV_REGISTER_SEARCH_ATTRIBUTES", false),
        npm(env),
        env.text("KANDEV_AGENTS_FILE").map(Path::of).orElse(null),
        timeouts,
        permissionPolicy(env),
        GitHubAppVariables.read(env),
        env.port("KANDEV_CREDENTIAL_BROKER_PORT").orElse(0),
        env.renamedSeconds("KANDEV_RESUME_LOCK_TTL_SECONDS", "KANDEV_RESUME_LOCK_TTL_MINUTES", "a whole number of minutes",
            minutes -> Duration.ofMinutes(Integer.parseInt(minutes)), Duration.ofMinutes(15), Duration.ofSeconds(1), null),
        env.positiveSeconds("KANDEV_AGENT_REAP_INTERVAL_SECONDS", Duration.ofSeconds(30)),
        stateDir(env),
        launchHeartbeatTimeout(env),
        env.port("KANDEV_HTTP_PORT"),
        httpAddress(env),
        temporalClient,
        new LaunchLimits(env.integer("KANDEV_MAX_CONCURRENT_LAUNCHES", LaunchLimits.DEFAULT_MAX_LAUNCHES),
            env.integer("KANDEV_MAX_RUNNING_AGENTS", LaunchLimits.DEFAULT_MAX_AGENTS)),
        env.positiveSeconds("KANDEV_HOST_WAIT_SECONDS", HostWaitBounds.DEFAULT),
        AgentHostSettings.inheritedFrom(environment),
        new DevSettings(env.text("KANDEV_TEMPORAL_CLI").map(Path::of), env.text("TEMPORAL_ADDRESS"),
            env.verbatim("PATH", null)),
        new WorkerVersioning(env.bool("KANDEV_WORKER_VERSIONING", false),
            env.text("KANDEV_DEPLOYMENT_NAME", WorkerVersioning.DEFAULT_DEPLOYMENT_NAME),
            env.text("KANDEV_BUILD_ID", BuildInfo.version())),
        retention(env),
        KandevBusSettings.of(env.text("KANDEV_NATS_URL"), env.text("KANDEV_NATS_CLIENTID")),
        LaunchAdapter.of(env.text(LaunchAdapter.VARIABLE, LaunchAdapter.AGENT_HOST.setting())),
        KandevBusRelayOwner.parse(env.text("KANDEV_BUS_RELAY")));
  }

  private static RetentionSettings retention(EnvironmentVariables env) {
    RetentionPolicy defaults = RetentionPolicy.DEFAULT;
    return new RetentionSettings(new RetentionPolicy(
        env.atLeast("KANDEV_RETENTION_SESSION_EVENTS_DAYS", 1, defaults.sessionEventsDays()),
        env.atLeast("KANDEV_RETENTION_SESSION_MESSAGES_DAYS", 1, defaults.sessionMessagesDays()),
        env.atLeast("KANDEV_RETENTION_EXECUTORS_RUNNING_DAYS", 1, defaults.executorsRunningDays()),
        env.atLeast("KANDEV_RETENTION_RUNTIME_UPDATE_JOBS_DAYS", 1, defaults.runtimeUpdateJobsDays()),
        env.atLeast("KANDEV_RETENTION_BATCH_SIZE", 1, defaults.batchSize())),
        env.positiveSeconds("KANDEV_RETENTION_INTERVAL_SECONDS", RetentionSettings.DEFAULT_EVERY));
  }

  /** The worker's own environment: the one place the process reads it. */
  public static Settings fromEnvironment() {
    return fromEnvironment(System.getenv());
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
  private static Path stateDir(EnvironmentVariables env) {
    Optional<String> explicit = env.text("KANDEV_STATE_DIR");
    if (explicit.isPresent()) {
      return Path.of(explicit.get());
    }
    Path base = env.text("XDG_STATE_HOME").map(Path::of)
        .orElseGet(() -> Path.of(System.getProperty("user.home"), ".local", "state"));
    return base.resolve("kandev-recovery");
  }

  /** TEMPORAL_ADDRESS (or the profile's address) as a gRPC client takes it: HOST:PORT. */
  private static String temporalAddress(TemporalClientConfig config) {
    String address = config.address();
    int colon = address.lastIndexOf(':');
    String port = colon < 0 ? "" : address.substring(colon + 1);
    if (colon <= 0 || !port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
      throw new IllegalArgumentException("TEMPORAL_ADDRESS must be HOST:PORT (e.g. 127.0.0.1:7233), got '" + address + "'");
    }
    return address;
  }

  /**
   * KANDEV_HTTP_ADDRESS: an IP address literal (no name, so nothing is looked up and the endpoint
   * never lands on an interface a resolver chose); default loopback.
   */
  private static String httpAddress(EnvironmentVariables env) {
    String value = env.text("KANDEV_HTTP_ADDRESS", DEFAULT_HTTP_ADDRESS);
    boolean ipv4 = value.matches("\\d{1,3}(\\.\\d{1,3}){3}")
        && java.util.Arrays.stream(value.split("\\.")).allMatch(octet -> Integer.parseInt(octet) <= 255);
    // With a colon InetAddress reads an IPv6 literal or refuses it: it never asks a resolver.
    boolean ipv6 = value.matches("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");
    try {
      if (ipv4 || ipv6 && InetAddress.getByName(value) != null) {
        return value;
      }
    } catch (UnknownHostException e) {
      // not a literal after all: refused below
    }
    throw new IllegalArgumentException("KANDEV_HTTP_ADDRESS must be an IP address to listen on (127.0.0.1, ::1;"
        + " 0.0.0.0 or :: for every interface), got '" + value + "'");
  }

  /** KANDEV_LOG_FORMAT is read by logback.xml (logback-text.xml, logback-json.xml); any other value would log nothing. */
  private static void requireKnownLogFormat(EnvironmentVariables env) {
    String format = env.text("KANDEV_LOG_FORMAT", "text");
    if (!format.equals("text") && !format.equals("json")) {
      throw new IllegalArgumentException("KANDEV_LOG_FORMAT must be text or json, got '" + format + "'");
    }
  }

  private static PermissionPolicy permissionPolicy(EnvironmentVariables env) {
    String value = env.text("KANDEV_AGENT_PERMISSION_POLICY", "reject");
    try {
      return PermissionPolicy.valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("KANDEV_AGENT_PERMISSION_POLICY must be allow or reject, got '" + value + "'");
    }
  }

  /**
   * KANDEV_NPM / KANDEV_NPX (executables); the children's environment is the worker's {@link
   * NpmSettings#INHERITED} variables plus KANDEV_NPM_CACHE / KANDEV_NPM_REGISTRY as {@code
   * npm_config_cache} / {@code npm_config_registry}; the update and probe time limits.
   */
  private static NpmSettings npm(EnvironmentVariables env) {
    Map<String, String> child = new TreeMap<>(NpmSettings.inheritedFrom(env.all()));
    env.text("KANDEV_NPM_CACHE").ifPresent(cache -> child.put("npm_config_cache", cache));
    env.text("KANDEV_NPM_REGISTRY").ifPresent(registry -> child.put("npm_config_registry", registry));
    String iso = "an ISO-8601 duration such as PT5M";
    return new NpmSettings(
        env.text("KANDEV_NPM", "npm"),
        env.text("KANDEV_NPX", "npx"),
        child,
        env.renamedSeconds("KANDEV_NPM_UPDATE_TIMEOUT_SECONDS", "KANDEV_NPM_UPDATE_TIMEOUT", iso, Duration::parse,
            Duration.ofMinutes(5), Duration.ofSeconds(1), NpmSettings.MAX_UPDATE_TIMEOUT),
        env.renamedSeconds("KANDEV_NPM_PROBE_TIMEOUT_SECONDS", "KANDEV_NPM_PROBE_TIMEOUT", iso, Duration::parse,
            Duration.ofSeconds(60), Duration.ofSeconds(1), NpmSettings.MAX_PROBE_TIMEOUT),
        Duration.ofSeconds(30));
  }

  private static Duration launchHeartbeatTimeout(EnvironmentVariables env) {
    String name = "KANDEV_LAUNCH_HEARTBEAT_TIMEOUT_SECONDS";
    Duration value = env.positiveSeconds(name, LaunchHeartbeat.TIMEOUT);
    if (value.compareTo(LaunchHeartbeat.MINIMUM_TIMEOUT) < 0) {
      throw new IllegalArgumentException(name + " must be at least " + LaunchHeartbeat.MINIMUM_TIMEOUT.toSeconds()
          + " (a heartbeat is sent every " + LaunchHeartbeat.SEND_EVERY.toSeconds() + " s), got " + value.toSeconds());
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
  private static String host(EnvironmentVariables env) {
    String host = env.text("KANDEV_HOST").orElseGet(Settings::localHostName);
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
