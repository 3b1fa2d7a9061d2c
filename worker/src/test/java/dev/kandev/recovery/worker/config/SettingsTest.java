package dev.kandev.recovery.worker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.kandev.recovery.activities.store.MigrationLimits;
import dev.kandev.recovery.activities.acp.PermissionPolicy;
import dev.kandev.recovery.activities.credentials.github.GitHubAppSettings;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.worker.events.KandevBusRelayOwner;
import dev.kandev.recovery.worker.limits.LaunchLimits;
import dev.kandev.recovery.worker.retention.RetentionSettings;
import dev.kandev.recovery.workflows.retention.RetentionPolicy;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

public class SettingsTest {
  @Test
  void aRestartedWorkerNeverTakesItsPredecessorsInstanceName() {
    String first = Settings.fromEnvironment(Map.of()).workerInstance();
    String restarted = Settings.fromEnvironment(Map.of()).workerInstance();

    assertThat(first).startsWith(ManagementFactory.getRuntimeMXBean().getName() + "/");
    assertThat(restarted).startsWith(ManagementFactory.getRuntimeMXBean().getName() + "/").isNotEqualTo(first);
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_WORKER_INSTANCE", "pod-7")).workerInstance()).isEqualTo("pod-7");
  }

  @Test
  void defaultsWorkOnADeveloperMachine() {
    Settings settings = Settings.fromEnvironment(Map.of());

    assertThat(settings.database().url()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/postgres");
    assertThat(settings.temporalAddress()).isEqualTo("127.0.0.1:7233");
    assertThat(settings.taskQueue()).isEqualTo("kandev-recovery");
    assertThat(settings.agentReapInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(settings.resumeLockTtl()).isEqualTo(Duration.ofMinutes(15));
    assertThat(settings.launchHeartbeatTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(settings.launchLimits()).isEqualTo(new LaunchLimits(4, 256));
    assertThat(settings.hostWait()).isEqualTo(Duration.ofSeconds(60));
    assertThat(settings.kandevBusRelay()).isEqualTo(KandevBusRelayOwner.WORKER);
  }

  @Test
  void kandevsProcessMayRelayTheBusEvents() {
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_BUS_RELAY", "kandev")).kandevBusRelay())
        .isEqualTo(KandevBusRelayOwner.KANDEV);
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_BUS_RELAY", "both")))
        .hasMessageContaining("KANDEV_BUS_RELAY must be worker or kandev");
  }

  @Test
  void hostsAndLimitsAreCheckedAtStart() {
    Settings settings = Settings.fromEnvironment(Map.of("KANDEV_HOST", "build-1", "KANDEV_MAX_CONCURRENT_LAUNCHES", "2",
        "KANDEV_MAX_RUNNING_AGENTS", "20", "KANDEV_HOST_WAIT_SECONDS", "5"));
    assertThat(settings.host()).isEqualTo("build-1");
    assertThat(settings.launchLimits()).isEqualTo(new LaunchLimits(2, 20));
    assertThat(settings.hostWait()).isEqualTo(Duration.ofSeconds(5));

    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_HOST", "build 1")))
        .hasMessage("KANDEV_HOST must not contain white space, got 'build 1'");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_HOST", "x".repeat(300))))
        .hasMessageContaining("KANDEV_HOST is 300 bytes long");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_MAX_CONCURRENT_LAUNCHES", "0")))
        .hasMessageContaining("KANDEV_MAX_CONCURRENT_LAUNCHES must be at least 1");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_HOST_WAIT_SECONDS", "0")))
        .hasMessageContaining("KANDEV_HOST_WAIT_SECONDS must be at least 1");
  }

  @Test
  void theLaunchAdapterIsOurAgentHostUnlessKandevsExecutorIsNamed() {
    assertThat(Settings.fromEnvironment(Map.of()).launchAdapter()).isEqualTo(LaunchAdapter.AGENT_HOST);
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_LAUNCH_ADAPTER", "agent-host")).launchAdapter())
        .isEqualTo(LaunchAdapter.AGENT_HOST);
    Settings kandev = Settings.fromEnvironment(Map.of("KANDEV_LAUNCH_ADAPTER", "kandev-executor"));
    assertThat(kandev.launchAdapter()).isEqualTo(LaunchAdapter.KANDEV_EXECUTOR);
    assertThat(kandev.launchAdapter().launchesHere()).isFalse();
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_LAUNCH_ADAPTER", "kandev")))
        .hasMessage("KANDEV_LAUNCH_ADAPTER must be one of agent-host, kandev-executor, got 'kandev'");
  }

  @Test
  void retentionAgesDefaultToMonthsAndAreWholeDaysOfAtLeastOne() {
    assertThat(Settings.fromEnvironment(Map.of()).retention()).isEqualTo(
        new RetentionSettings(new RetentionPolicy(90, 180, 30, 30, 500), Duration.ofDays(1)));
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_RETENTION_SESSION_EVENTS_DAYS", "7",
        "KANDEV_RETENTION_RUNTIME_UPDATE_JOBS_DAYS", "2", "KANDEV_RETENTION_INTERVAL_SECONDS", "3600",
        "KANDEV_RETENTION_BATCH_SIZE", "50")).retention())
        .isEqualTo(new RetentionSettings(new RetentionPolicy(7, 180, 30, 2, 50), Duration.ofHours(1)));
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_RETENTION_SESSION_MESSAGES_DAYS", "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_RETENTION_SESSION_MESSAGES_DAYS must be at least 1, got 0");
  }

  @Test
  void aLaunchHeartbeatTimeoutWithoutRoomForAHeartbeatIsRefused() {
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_LAUNCH_HEARTBEAT_TIMEOUT_SECONDS", "10")).launchHeartbeatTimeout())
        .isEqualTo(Duration.ofSeconds(10));
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_LAUNCH_HEARTBEAT_TIMEOUT_SECONDS", "9")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_LAUNCH_HEARTBEAT_TIMEOUT_SECONDS must be at least 10 (a heartbeat is sent every 5 s), got 9");
  }

  @Test
  void aMalformedNumberIsRefusedWithItsName() {
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_AGENT_REAP_INTERVAL_SECONDS", "soon")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_AGENT_REAP_INTERVAL_SECONDS must be a whole number of seconds, got 'soon'");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_AGENT_REAP_INTERVAL_SECONDS", "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_AGENT_REAP_INTERVAL_SECONDS must be at least 1 (seconds), got 0");
  }

  @Test
  void anUnknownLogFormatIsRefused() {
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_LOG_FORMAT", "json")).taskQueue()).isEqualTo("kandev-recovery");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_LOG_FORMAT", "xml")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_LOG_FORMAT must be text or json, got 'xml'");
  }

  @Test
  void kandevsGoFormOfTheDatabaseUrlBecomesJdbcWithItsUserAndPasswordApart() {
    var db = Settings.fromEnvironment(Map.of("KANDEV_DB_URL", "postgres://kandev:p%40ss@db.internal:5433/kandev?sslmode=disable"))
        .database();
    assertThat(db.url()).isEqualTo("jdbc:postgresql://db.internal:5433/kandev?sslmode=disable");
    assertThat(db.user()).isEqualTo("kandev");
    assertThat(db.password()).isEqualTo("p@ss");

    var bare = Settings.fromEnvironment(Map.of("KANDEV_DB_URL", "postgresql://127.0.0.1/x", "KANDEV_DB_USER", "u")).database();
    assertThat(bare.url()).isEqualTo("jdbc:postgresql://127.0.0.1/x");
    assertThat(bare.user()).isEqualTo("u");
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_DB_URL", "jdbc:postgresql://h/d")).database().url())
        .isEqualTo("jdbc:postgresql://h/d");
  }

  @Test
  void aDatabaseUrlOfAnotherFormIsRefusedNamingTheAcceptedOnesWithoutThePassword() {
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_DB_URL", "host=127.0.0.1 dbname=x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_DB_URL must be jdbc:postgresql://HOST[:PORT]/DATABASE or"
            + " postgres://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE, got 'host=127.0.0.1 dbname=x'");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_DB_URL", "postgres://u:secret@a,b/x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("(one host)").hasMessageNotContaining("secret");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_DB_URL", "postgres://a@h/x", "KANDEV_DB_USER", "b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_DB_URL and KANDEV_DB_USER disagree: set it in one of them");
  }

  @Test
  void theTemporalAddressMustBeHostAndPort() {
    assertThat(Settings.fromEnvironment(Map.of("TEMPORAL_ADDRESS", "temporal:7233")).temporalAddress())
        .isEqualTo("temporal:7233");
    for (String bad : new String[] {"garbage", "host:", ":7233", "host:99999", "host:port"}) {
      assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("TEMPORAL_ADDRESS", bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("TEMPORAL_ADDRESS must be HOST:PORT (e.g. 127.0.0.1:7233), got '" + bad + "'");
    }
  }

  @Test
  void theHttpEndpointIsOffUnlessAPortIsSet() {
    assertThat(Settings.fromEnvironment(Map.of()).httpPort()).isEmpty();
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_HTTP_PORT", "9464")).httpPort()).hasValue(9464);
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_HTTP_PORT", "70000")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_HTTP_PORT must be a port (0 to 65535), got 70000");
  }

  @Test
  void theHttpEndpointListensOnLoopbackUnlessAnAddressIsSet() {
    assertThat(Settings.fromEnvironment(Map.of()).httpAddress()).isEqualTo("127.0.0.1");
    for (String address : new String[] {"0.0.0.0", "::", "::1", "10.1.2.3", "fe80::1"}) {
      assertThat(Settings.fromEnvironment(Map.of("KANDEV_HTTP_ADDRESS", address)).httpAddress()).isEqualTo(address);
    }
    for (String bad : new String[] {"localhost", "example.com", "256.1.1.1", "1.2.3", "::g", "0.0.0.0:9464"}) {
      assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_HTTP_ADDRESS", bad)))
          .as(bad).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("KANDEV_HTTP_ADDRESS must be an IP address to listen on (127.0.0.1, ::1; 0.0.0.0 or :: for every"
              + " interface), got '" + bad + "'");
    }
  }

  @Test
  void temporalIsReachedAsTemporalsOwnClientConfigurationSaysAndItsApiKeyNeverShows(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("temporal.toml");
    Files.writeString(file, """
        [profile.default]
        address = "127.0.0.1:7233"

        [profile.prod]
        address = "prod.example:7234"
        namespace = "kandev"
        api_key = "sekret-api-key"
        """);

    Settings prod = Settings.fromEnvironment(Map.of("TEMPORAL_CONFIG_FILE", file.toString(), "TEMPORAL_PROFILE", "prod"));
    Settings overridden = Settings.fromEnvironment(
        Map.of("TEMPORAL_CONFIG_FILE", file.toString(), "TEMPORAL_PROFILE", "prod", "TEMPORAL_ADDRESS", "other:7233"));

    assertThat(prod.temporalAddress()).isEqualTo("prod.example:7234");
    assertThat(prod.temporalNamespace()).isEqualTo("kandev");
    assertThat(prod.temporalClient().hasApiKey()).isTrue();
    assertThat(prod.temporalClient().tls()).as("an API key implies TLS, as in the other SDKs").isTrue();
    assertThat(prod.toString()).doesNotContain("sekret-api-key").contains("apiKey=set");
    assertThat(overridden.temporalAddress()).isEqualTo("other:7233");
    assertThat(Settings.fromEnvironment(Map.of()).temporalClient().tls()).isFalse();
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("TEMPORAL_CONFIG_FILE", file.toString(), "TEMPORAL_PROFILE", "nope")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("profile nope");
  }

  @Test
  void everyDurationIsWholeSecondsAndABadOneIsRefusedWithItsNameValueAndWhatIsExpected() {
    Settings settings = Settings.fromEnvironment(Map.of("KANDEV_RESUME_LOCK_TTL_SECONDS", "600",
        "KANDEV_ACP_SESSION_NEW_TIMEOUT_SECONDS", "30", "KANDEV_NPM_UPDATE_TIMEOUT_SECONDS", "120",
        "KANDEV_NPM_PROBE_TIMEOUT_SECONDS", "45"));
    assertThat(settings.resumeLockTtl()).isEqualTo(Duration.ofMinutes(10));
    assertThat(settings.acpTimeouts().sessionNew()).isEqualTo(Duration.ofSeconds(30));
    assertThat(settings.npm().updateTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(settings.npm().probeTimeout()).isEqualTo(Duration.ofSeconds(45));
    Settings defaults = Settings.fromEnvironment(Map.of());
    assertThat(defaults.npm().updateTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(defaults.npm().probeTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(defaults.acpTimeouts().initialize()).isEqualTo(Duration.ofSeconds(180));

    assertRefused("KANDEV_RESUME_LOCK_TTL_SECONDS", "PT15M", "must be a whole number of seconds, got 'PT15M'");
    assertRefused("KANDEV_ACP_INITIALIZE_TIMEOUT_SECONDS", "0", "must be at least 1 (seconds), got 0");
    assertRefused("KANDEV_NPM_UPDATE_TIMEOUT_SECONDS", "600", "must be at most 330 (seconds), got 600");
    assertRefused("KANDEV_NPM_PROBE_TIMEOUT_SECONDS", "91", "must be at most 90 (seconds), got 91");
    assertRefused(Map.of("KANDEV_GITHUB_API_TIMEOUT_SECONDS", "ten", "KANDEV_GITHUB_APP_ID", "1",
        "KANDEV_GITHUB_APP_PRIVATE_KEY", "pem"), "KANDEV_GITHUB_API_TIMEOUT_SECONDS must be a whole number of seconds, got 'ten'");
  }

  @Test
  void theMigrationsHaveLimitsOfTheirOwnInWholeSeconds() {
    assertThat(Settings.fromEnvironment(Map.of()).database().migration()).isEqualTo(MigrationLimits.DEFAULT);
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_MIGRATION_LOCK_TIMEOUT_SECONDS", "120",
        "KANDEV_MIGRATION_STATEMENT_TIMEOUT_SECONDS", "7200")).database().migration())
        .isEqualTo(new MigrationLimits(Duration.ofMinutes(2), Duration.ofHours(2)));

    assertRefused("KANDEV_MIGRATION_LOCK_TIMEOUT_SECONDS", "0", "must be at least 1 (seconds), got 0");
    assertRefused("KANDEV_MIGRATION_STATEMENT_TIMEOUT_SECONDS", "1h", "must be a whole number of seconds, got '1h'");
  }

  @Test
  void aDurationUnderItsFormerNameStillWorksWithADeprecationWarning() {
    List<String> warnings = new ArrayList<>();

    Settings settings = Settings.fromEnvironment(Map.of("KANDEV_RESUME_LOCK_TTL_MINUTES", "20",
        "KANDEV_NPM_UPDATE_TIMEOUT", "PT4M", "KANDEV_NPM_PROBE_TIMEOUT", "PT30S"), warnings::add);

    assertThat(settings.resumeLockTtl()).isEqualTo(Duration.ofMinutes(20));
    assertThat(settings.npm().updateTimeout()).isEqualTo(Duration.ofMinutes(4));
    assertThat(settings.npm().probeTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(warnings).containsExactlyInAnyOrder(
        "KANDEV_RESUME_LOCK_TTL_MINUTES is deprecated and will be removed: set KANDEV_RESUME_LOCK_TTL_SECONDS=1200"
            + " instead (durations are whole seconds)",
        "KANDEV_NPM_UPDATE_TIMEOUT is deprecated and will be removed: set KANDEV_NPM_UPDATE_TIMEOUT_SECONDS=240"
            + " instead (durations are whole seconds)",
        "KANDEV_NPM_PROBE_TIMEOUT is deprecated and will be removed: set KANDEV_NPM_PROBE_TIMEOUT_SECONDS=30"
            + " instead (durations are whole seconds)");
    assertThat(Settings.fromEnvironment(Map.of(), warnings::add)).isNotNull();
    assertThat(warnings).hasSize(3);

    assertRefused("KANDEV_RESUME_LOCK_TTL_MINUTES", "soon", "must be a whole number of minutes, got 'soon'");
    assertRefused("KANDEV_NPM_UPDATE_TIMEOUT", "5m", "must be an ISO-8601 duration such as PT5M, got '5m'");
    assertRefused("KANDEV_NPM_UPDATE_TIMEOUT", "PT10M", "must be at most 330 (seconds), got 600");
    assertRefused(Map.of("KANDEV_RESUME_LOCK_TTL_MINUTES", "20", "KANDEV_RESUME_LOCK_TTL_SECONDS", "60"),
        "both KANDEV_RESUME_LOCK_TTL_SECONDS and its deprecated former name KANDEV_RESUME_LOCK_TTL_MINUTES are set:"
            + " set only KANDEV_RESUME_LOCK_TTL_SECONDS");
  }

  @Test
  void theDeprecationWarningIsALogLine() {
    Logger logger = (Logger) LoggerFactory.getLogger(Settings.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    try {
      Settings.fromEnvironment(Map.of("KANDEV_RESUME_LOCK_TTL_MINUTES", "15"));
    } finally {
      logger.detachAppender(logs);
    }
    assertThat(logs.list).singleElement().satisfies(event -> {
      assertThat(event.getLevel()).isEqualTo(Level.WARN);
      assertThat(event.getFormattedMessage()).startsWith("KANDEV_RESUME_LOCK_TTL_MINUTES is deprecated");
    });
  }

  @Test
  void otherBadValuesAreRefusedWithTheirNameValueAndWhatIsExpected() {
    assertRefused("KANDEV_AGENT_PERMISSION_POLICY", "ask", "must be allow or reject, got 'ask'");
    assertRefused("KANDEV_REGISTER_SEARCH_ATTRIBUTES", "yes", "must be true or false, got 'yes'");
    assertRefused("KANDEV_DB_POOL_SIZE", "0", "must be at least 1, got 0");
    assertRefused("KANDEV_CREDENTIAL_BROKER_PORT", "http", "must be a port (0 to 65535), got 'http'");
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_AGENT_PERMISSION_POLICY", "Allow")).permissionPolicy())
        .isEqualTo(PermissionPolicy.ALLOW);
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_REGISTER_SEARCH_ATTRIBUTES", "TRUE")).registerSearchAttributes())
        .isTrue();
  }

  @Test
  void theGitHubAppComesFromTheEnvironmentAndItsSecretsNeverShowInAnError(@TempDir Path dir) throws Exception {
    Path keyFile = dir.resolve("app.pem");
    Files.writeString(keyFile, "-----BEGIN RSA PRIVATE KEY-----\nx\n-----END RSA PRIVATE KEY-----\n");

    assertThat(Settings.fromEnvironment(Map.of()).gitHubApp()).isEmpty();
    GitHubAppSettings app = Settings.fromEnvironment(Map.of("KANDEV_GITHUB_APP_ID", "777",
        "KANDEV_GITHUB_APP_PRIVATE_KEY_FILE", keyFile.toString(),
        "KANDEV_GITHUB_API_BASE", "https://github.example/api/v3/")).gitHubApp().orElseThrow();
    assertThat(app.appId()).isEqualTo("777");
    assertThat(app.privateKeyPem()).isEqualTo(Files.readString(keyFile));
    assertThat(app.apiBase()).isEqualTo(URI.create("https://github.example/api/v3"));
    assertThat(app.requestTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_GITHUB_APP_ID", "777", "KANDEV_GITHUB_APP_PRIVATE_KEY", "inline-pem",
        "KANDEV_GITHUB_APP_PRIVATE_KEY_FILE", keyFile.toString())).gitHubApp().orElseThrow().privateKeyPem())
        .as("the variable wins over the file").isEqualTo("inline-pem");

    assertRefused(Map.of("KANDEV_GITHUB_APP_ID", "777"), "KANDEV_GITHUB_APP_ID is set, so KANDEV_GITHUB_APP_PRIVATE_KEY_FILE"
        + " or KANDEV_GITHUB_APP_PRIVATE_KEY must be set too (the App's PEM key)");
    Path missing = dir.resolve("missing.pem");
    assertRefused(Map.of("KANDEV_GITHUB_APP_ID", "777", "KANDEV_GITHUB_APP_PRIVATE_KEY_FILE", missing.toString()),
        "KANDEV_GITHUB_APP_PRIVATE_KEY_FILE must name a readable file holding the App's PEM key, got '" + missing + "'");
    assertRefused(Map.of("KANDEV_GITHUB_APP_ID", "777", "KANDEV_GITHUB_APP_PRIVATE_KEY", "pem",
        "KANDEV_GITHUB_API_BASE", "ftp://github.example"), "KANDEV_GITHUB_API_BASE must be an http(s) URL without user"
        + " info such as https://api.github.com or https://host/api/v3, got 'ftp://github.example'");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_GITHUB_APP_ID", "777",
        "KANDEV_GITHUB_APP_PRIVATE_KEY", "pem", "KANDEV_GITHUB_API_BASE", "https://user:hunter2@github.example")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("user info (not shown)")
        .message().doesNotContain("hunter2");
  }

  @Test
  void agentsAndNpmInheritOnlyTheirFewVariablesOfTheWorkersEnvironment() {
    Settings settings = Settings.fromEnvironment(Map.of("PATH", "/usr/bin", "HOME", "/home/k", "LANG", "C.UTF-8",
        "KANDEV_DB_PASSWORD", "db-secret", "GITHUB_TOKEN", "ghs_x", "HTTPS_PROXY", "http://proxy:3128",
        "KANDEV_NPM_CACHE", "/var/cache/npm", "KANDEV_NPM_REGISTRY", "http://registry.local/"));

    assertThat(settings.agentEnvironment())
        .containsOnly(Map.entry("PATH", "/usr/bin"), Map.entry("HOME", "/home/k"), Map.entry("LANG", "C.UTF-8"));
    assertThat(settings.npm().environment()).containsOnly(Map.entry("PATH", "/usr/bin"), Map.entry("HOME", "/home/k"),
        Map.entry("LANG", "C.UTF-8"), Map.entry("HTTPS_PROXY", "http://proxy:3128"),
        Map.entry("npm_config_cache", "/var/cache/npm"), Map.entry("npm_config_registry", "http://registry.local/"));
    assertThat(settings.dev().path()).isEqualTo("/usr/bin");
    assertThat(settings.toString()).doesNotContain("db-secret", "ghs_x");
  }

  @Test
  void theStoreLayoutIsOurMirrorUnlessKandevsTablesAreNamed() {
    assertThat(Settings.fromEnvironment(Map.of()).database().layout()).isEqualTo(StoreLayout.MIRROR);
    StoreLayout kandev = Settings.fromEnvironment(
        Map.of("KANDEV_STORE_LAYOUT", "kandev", "KANDEV_KANDEV_SCHEMA", "kandev_app")).database().layout();
    assertThat(kandev).isEqualTo(StoreLayout.kandev("kandev_app"));
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_STORE_LAYOUT", "kandev")).database().layout().kandevSchema())
        .isEqualTo("public");
    assertRefused(Map.of("KANDEV_STORE_LAYOUT", "kandev_tables"),
        "KANDEV_STORE_LAYOUT must be mirror or kandev, got 'kandev_tables'");
    assertRefused(Map.of("KANDEV_STORE_LAYOUT", "kandev", "KANDEV_KANDEV_SCHEMA", "Public; drop"),
        "KANDEV_KANDEV_SCHEMA must be a lowercase SQL identifier, got 'Public; drop'");
    assertRefused(Map.of("KANDEV_STORE_LAYOUT", "kandev", "KANDEV_KANDEV_SCHEMA", "kandev_recovery"),
        "KANDEV_DB_SCHEMA and KANDEV_KANDEV_SCHEMA must differ in the kandev layout (ours holds tables named like"
            + " Kandev's), both are 'kandev_recovery'");
  }

  private static void assertRefused(Map<String, String> env, String message) {
    assertThatThrownBy(() -> Settings.fromEnvironment(env)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  /** {@code variable=value} alone is refused with a message naming the variable, then {@code problem}. */
  private static void assertRefused(String variable, String value, String problem) {
    assertRefused(Map.of(variable, value), variable + " " + problem);
  }
}
