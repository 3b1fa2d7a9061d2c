package dev.kandev.recovery.worker.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kandev.recovery.activities.acp.AcpTimeouts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Dockerfile and the compose worker, read where no Docker engine runs: the production image is
 * health-checked, sizes its heap from the container's memory and holds no test agent; compose gives
 * the worker the time to stop its agents and its database password as a secret file.
 */
class DeployFilesTest {
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  /** The worker's own shutdown before it stops agents: TemporalWorkers waits for its tasks this long. */
  private static final Duration WORKER_SHUTDOWN = Duration.ofSeconds(10);

  @Test
  void theProductionImageIsHealthCheckedSizesItsHeapAndHoldsNoTestAgent() throws IOException {
    Map<String, List<String>> stages = stages();
    String last = List.copyOf(stages.keySet()).get(stages.size() - 1);
    assertThat(last).as("the default target").isEqualTo("production");
    List<String> production = new ArrayList<>(stages.get("runtime"));
    production.addAll(stages.get("production"));

    assertThat(production).anySatisfy(line -> assertThat(line).startsWith("ENV ").contains("KANDEV_HTTP_PORT=9464")
        .as("loopback is the default: the container's endpoint must be set to its interfaces")
        .contains("KANDEV_HTTP_ADDRESS=0.0.0.0"));
    assertThat(production).anySatisfy(line -> assertThat(line).startsWith("HEALTHCHECK ")
        .contains("CMD curl -fsS \"http://127.0.0.1:${KANDEV_HTTP_PORT}/readyz\""));
    assertThat(production).anySatisfy(line -> assertThat(line).startsWith("ENTRYPOINT [\"java\", ")
        .contains("\"-XX:MaxRAMPercentage=").contains("\"-jar\", \"/app/kandev-recovery.jar\""));
    assertThat(production).noneMatch(line -> line.contains("test-agent"));
    assertThat(stages.get("with-test-agent")).anySatisfy(line -> assertThat(line).contains("/src/test-agent /app/test-agent"));
  }

  @Test
  void composeGivesTheWorkerTimeToStopItsAgentsAndItsPasswordAsASecretFile() throws IOException {
    JsonNode compose = new ObjectMapper(new YAMLFactory()).readTree(REPOSITORY.resolve("docker-compose.yml").toFile());
    JsonNode worker = compose.at("/services/worker");

    Duration stopGrace = AcpTimeouts.defaults().stopGrace();
    // stdin closed, then SIGTERM, then SIGKILL, stopGrace apart (all agents at once), after the worker's shutdown.
    Duration needed = WORKER_SHUTDOWN.plus(stopGrace.multipliedBy(2));
    assertThat(Duration.ofSeconds(Long.parseLong(worker.at("/stop_grace_period").asText().replace("s", ""))))
        .isGreaterThanOrEqualTo(needed.multipliedBy(2));

    assertThat(worker.at("/environment").has("KANDEV_DB_PASSWORD")).as("no plain password").isFalse();
    String file = worker.at("/environment/KANDEV_DB_PASSWORD_FILE").asText();
    assertThat(file).isEqualTo("/run/secrets/kandev_db_password");
    assertThat(worker.at("/secrets").toString()).contains("kandev_db_password");
    assertThat(compose.at("/services/kandev-postgresql/environment/POSTGRES_PASSWORD_FILE").asText()).isEqualTo(file);
    assertThat(compose.at("/services/kandev-postgresql/environment").has("POSTGRES_PASSWORD")).isFalse();
    Path secret = REPOSITORY.resolve(compose.at("/secrets/kandev_db_password/file").asText());
    assertThat(secret).isRegularFile();
    assertThat(SecretFiles.FILE_VARIABLES).containsEntry("KANDEV_DB_PASSWORD", "KANDEV_DB_PASSWORD_FILE");

    // deploy/agents.json names the test agent, which the image no longer holds: compose mounts it.
    assertThat(Files.readString(REPOSITORY.resolve("deploy/agents.json"))).contains("/app/test-agent/");
    assertThat(worker.at("/volumes").toString()).contains("./test-agent:/app/test-agent:ro");
  }

  /** Each stage's instructions (continuation lines joined, comments left out), by stage name. */
  private static Map<String, List<String>> stages() throws IOException {
    Map<String, List<String>> stages = new LinkedHashMap<>();
    List<String> current = null;
    StringBuilder pending = new StringBuilder();
    for (String raw : Files.readAllLines(REPOSITORY.resolve("Dockerfile"))) {
      String line = raw.strip();
      if (pending.length() == 0 && (line.isEmpty() || line.startsWith("#"))) {
        continue;
      }
      if (line.endsWith("\\")) {
        pending.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      String instruction = pending.append(line).toString().replaceAll("\\s+", " ");
      pending.setLength(0);
      if (instruction.startsWith("FROM ")) {
        String[] words = instruction.split(" ");
        current = new ArrayList<>();
        stages.put(words[words.length - 1], current);
      } else if (current != null) {
        current.add(instruction);
      }
    }
    return stages;
  }
}
