package dev.kandev.recovery.worker.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The compose files, checked where no Docker engine runs: every setting the worker is given is one
 * it reads, every image is pinned, the search attributes are ours, no host port clashes with a
 * local PostgreSQL or a running {@code dev}, and (where Debian's docker-compose is installed) the
 * file is valid Compose.
 */
public class ComposeFilesTest {
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  private static final Path COMPOSE = REPOSITORY.resolve("docker-compose.yml");
  private static final Path DEV_SERVER_COMPOSE = REPOSITORY.resolve("deploy/compose.dev-server.yml");
  private static final Path COMPOSE_SECRETS = REPOSITORY.resolve("scripts/compose-secrets");
  private static final Set<Integer> LOCAL_PORTS = Set.of(5432, 7233, 8233);
  private final ObjectMapper yaml = new ObjectMapper(new YAMLFactory());

  @Test
  void everyKandevAndTemporalVariableOfTheWorkerIsASettingItReads() throws IOException {
    JsonNode environment = read(COMPOSE).at("/services/worker/environment");
    List<String> names = new ArrayList<>();
    environment.fieldNames().forEachRemaining(names::add);
    String configuration = Files.readString(REPOSITORY.resolve("docs/configuration.md"));
    String mainSources = mainSources();

    assertThat(names).filteredOn(n -> n.startsWith("KANDEV_") || n.startsWith("TEMPORAL_")).isNotEmpty()
        .allSatisfy(name -> {
          assertThat(configuration.contains("`" + name + "`")).as("docs/configuration.md documents %s", name).isTrue();
          // KANDEV_* are read by name in our code; TEMPORAL_* by Temporal's envconfig, which
          // TemporalClientConfig names.
          String read = name.startsWith("KANDEV_") ? "\"" + name + "\"" : name;
          assertThat(mainSources.contains(read)).as("the worker reads %s", name).isTrue();
        });
  }

  @ParameterizedTest
  @ValueSource(strings = {"docker-compose.yml", "deploy/compose.dev-server.yml"})
  void everyImageIsPinnedAndNoHostPortClashesWithDevOrALocalPostgresql(String file) throws IOException {
    JsonNode services = read(REPOSITORY.resolve(file)).get("services");
    List<Integer> published = new ArrayList<>();
    services.fields().forEachRemaining(service -> {
      JsonNode image = service.getValue().get("image");
      if (image != null) {
        assertThat(image.asText()).as("image of %s", service.getKey()).matches("[^:]+:\\d+(\\.\\d+)+");
      } else {
        assertThat(service.getValue().has("build")).as("%s has an image or a build", service.getKey()).isTrue();
      }
      service.getValue().path("ports").forEach(port -> published.add(hostPort(port.asText())));
    });
    assertThat(published).doesNotHaveDuplicates();
    if (file.equals("docker-compose.yml")) {
      assertThat(published).doesNotContainAnyElementsOf(LOCAL_PORTS);
    }
  }

  /**
   * The worker listens on loopback unless told otherwise; in its container it must listen on the
   * container's interfaces to be reachable through the published port, which only the host's
   * loopback publishes (as every port of the file).
   */
  @Test
  void theWorkersHttpEndpointIsSetToTheContainersInterfacesAndPublishedOnLoopbackOnly() throws IOException {
    JsonNode compose = read(COMPOSE);
    JsonNode worker = compose.at("/services/worker");
    assertThat(worker.at("/environment/KANDEV_HTTP_ADDRESS").asText()).isEqualTo("0.0.0.0");
    String port = worker.at("/environment/KANDEV_HTTP_PORT").asText();
    assertThat(worker.at("/ports").toString()).contains("\"127.0.0.1:" + port + ":" + port + "\"");
    for (Path file : List.of(COMPOSE, DEV_SERVER_COMPOSE)) {
      read(file).get("services").forEach(service -> service.path("ports")
          .forEach(mapping -> assertThat(mapping.asText()).as("%s publishes on loopback", file).startsWith("127.0.0.1:")));
    }
  }

  /**
   * A deployment never starts on a password that is in git: every password of the file is a secret
   * file under deploy/secrets, which git ignores and holds none of, that scripts/compose-secrets
   * generates and the compose-secrets check requires; no service is given a secret's value.
   */
  @Test
  void noSecretValueIsCommittedAndComposeHandsOutSecretFilesOnly() throws Exception {
    JsonNode compose = read(COMPOSE);
    Pattern secretName = Pattern.compile("(?i)PASSWORD|PWD|SECRET|TOKEN|API_KEY");
    compose.get("services").fields().forEachRemaining(service -> service.getValue().path("environment").fieldNames()
        .forEachRemaining(name -> assertThat(!secretName.matcher(name).find() || name.endsWith("_FILE"))
            .as("%s of %s is a secret's value, not its file", name, service.getKey()).isTrue()));

    List<String> files = new ArrayList<>();
    compose.get("secrets").fields().forEachRemaining(secret -> files.add(secret.getValue().get("file").asText()));
    assertThat(files).isNotEmpty().allSatisfy(file -> assertThat(file).startsWith("./deploy/secrets/"));
    List<String> names = files.stream().map(f -> f.substring("./deploy/secrets/".length())).toList();
    for (String file : files) {
      assertThat(git("check-ignore", "-q", file.substring(2)).exitValue()).as("git ignores %s", file).isZero();
    }
    Process tracked = git("ls-files", "deploy/secrets");
    assertThat(new String(tracked.getInputStream().readAllBytes()).strip()).as("committed under deploy/secrets")
        .isEqualTo("deploy/secrets/.gitignore");

    Matcher generated = Pattern.compile("names=\\(([^)]*)\\)").matcher(Files.readString(COMPOSE_SECRETS));
    assertThat(generated.find()).isTrue();
    assertThat(generated.group(1).split(" ")).as("what scripts/compose-secrets generates").containsExactlyInAnyOrderElementsOf(names);
    assertThat(compose.at("/services/compose-secrets/entrypoint").toString()).as("what the check requires")
        .contains("for f in " + String.join(" ", names) + ";");
    compose.get("services").fields().forEachRemaining(service -> {
      if (service.getValue().has("image") && service.getValue().get("image").asText().startsWith("postgres:")
          && !service.getKey().equals("compose-secrets")) {
        assertThat(service.getValue().at("/depends_on/compose-secrets/condition").asText())
            .as("%s waits for the secrets' check", service.getKey()).isEqualTo("service_completed_successfully");
      }
    });
  }

  @Test
  void composeSecretsGeneratesEachSecretOnceAndKeepsOneGivenOrMadeBefore(@TempDir Path dir) throws Exception {
    Path secrets = dir.resolve("secrets");
    Files.createDirectories(secrets);
    Files.writeString(secrets.resolve("temporal-db-password"), "provided-by-the-operator\n");

    assertThat(composeSecrets(secrets)).contains("kandev-db-password: generated", "temporal-db-password: kept");
    String generated = Files.readString(secrets.resolve("kandev-db-password"));
    assertThat(generated).matches("[0-9a-f]{32}\n");
    assertThat(Files.readString(secrets.resolve("temporal-db-password"))).isEqualTo("provided-by-the-operator\n");

    assertThat(composeSecrets(secrets)).contains("kandev-db-password: kept", "temporal-db-password: kept");
    assertThat(Files.readString(secrets.resolve("kandev-db-password"))).as("a second run changes nothing").isEqualTo(generated);
    assertThat(Files.getPosixFilePermissions(secrets)).as("only the owner looks into the folder")
        .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
            PosixFilePermission.OWNER_EXECUTE);

    Path other = dir.resolve("other");
    composeSecrets(other);
    assertThat(Files.readString(other.resolve("kandev-db-password"))).as("random").isNotEqualTo(generated);
  }

  private static String composeSecrets(Path dir) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(COMPOSE_SECRETS.toString()).redirectErrorStream(true);
    builder.environment().put("KANDEV_SECRETS_DIR", dir.toString());
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return output;
  }

  private static Process git(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "-C", REPOSITORY.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    process.getOutputStream().close();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return process;
  }

  @Test
  void theComposeServerRegistersExactlyOurSearchAttributes() throws IOException {
    String script = Files.readString(REPOSITORY.resolve("deploy/temporal/scripts/create-namespace.sh"));
    Matcher list = Pattern.compile("SEARCH_ATTRIBUTES=\"([^\"]*)\"").matcher(script);
    assertThat(list.find()).isTrue();
    List<String> ours = RecoverySearchAttributes.ALL.stream().map(k -> k.getName()).toList();
    assertThat(list.group(1).split(" ")).containsExactlyInAnyOrderElementsOf(ours);
    assertThat(Files.readString(DEV_SERVER_COMPOSE)).contains(ours.stream().map(n -> n + "=Keyword").toList());
  }

  @Test
  void theWorkerIsHealthCheckedOnReadyzAndMountsItsAgentsWorkspacesAndNpmCache() throws IOException {
    JsonNode worker = read(COMPOSE).at("/services/worker");
    String port = worker.at("/environment/KANDEV_HTTP_PORT").asText();
    assertThat(worker.at("/healthcheck/test").toString()).contains("http://127.0.0.1:" + port + "/readyz");
    List<String> volumes = new ArrayList<>();
    worker.get("volumes").forEach(v -> volumes.add(v.asText()));
    assertThat(volumes).anyMatch(v -> v.endsWith(":" + worker.at("/environment/KANDEV_AGENTS_FILE").asText() + ":ro"))
        .anyMatch(v -> v.startsWith("workspaces:"))
        .anyMatch(v -> v.endsWith(":" + worker.at("/environment/KANDEV_NPM_CACHE").asText()));
    String agentsFile = volumes.stream().filter(v -> v.startsWith("./")).findFirst().orElseThrow().split(":")[0];
    assertThat(new ObjectMapper().readTree(REPOSITORY.resolve(agentsFile).toFile()).isObject()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"docker-compose.yml", "deploy/compose.dev-server.yml"})
  void debiansDockerComposeFindsTheFileValid(String file) throws Exception {
    Path tool = Path.of("/usr/bin/docker-compose");
    Assumptions.assumeTrue(Files.isExecutable(tool),
        "Debian's docker-compose is not installed (scripts/setup installs it)");
    Process config = new ProcessBuilder(tool.toString(), "-f", REPOSITORY.resolve(file).toString(), "config", "-q")
        .redirectErrorStream(true).start();
    assertThat(config.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(config.exitValue()).as(new String(config.getInputStream().readAllBytes())).isZero();
  }

  private JsonNode read(Path file) throws IOException {
    return yaml.readTree(file.toFile());
  }

  /** {@code "127.0.0.1:8080:8080"} or {@code "8080:8080"} → 8080. */
  private static int hostPort(String mapping) {
    String[] parts = mapping.split(":");
    return Integer.parseInt(parts[parts.length - 2]);
  }

  private static String mainSources() throws IOException {
    StringBuilder all = new StringBuilder();
    for (String module : List.of("workflows", "activities", "worker")) {
      try (Stream<Path> files = Files.walk(REPOSITORY.resolve(module).resolve("src/main/java"))) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          all.append(Files.readString(file));
        }
      }
    }
    return all.toString();
  }
}
