package dev.kandev.recovery.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.worker.limits.LaunchLimits;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsTest {
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
        .hasMessage("KANDEV_AGENT_REAP_INTERVAL_SECONDS must be a whole number, got 'soon'");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_AGENT_REAP_INTERVAL_SECONDS", "0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_AGENT_REAP_INTERVAL_SECONDS must be at least 1, got 0");
  }

  @Test
  void anUnknownLogFormatIsRefused() {
    assertThat(Settings.fromEnvironment(Map.of("KANDEV_LOG_FORMAT", "json")).taskQueue()).isEqualTo("kandev-recovery");
    assertThatThrownBy(() -> Settings.fromEnvironment(Map.of("KANDEV_LOG_FORMAT", "xml")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("KANDEV_LOG_FORMAT must be text or json, got 'xml'");
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
}
