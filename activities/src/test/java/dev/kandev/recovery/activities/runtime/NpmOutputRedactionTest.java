package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.testing.FakeSecrets;
import dev.kandev.recovery.activities.testing.NpmSandbox;
import dev.kandev.recovery.workflows.runtime.AgentRuntime;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import dev.kandev.recovery.workflows.runtime.UpdateOutcome;
import dev.kandev.recovery.workflows.runtime.UpdateStep;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * npm's output of a runtime update that fails, through the real update step: real npm with a
 * private cache installs a local package (a {@code file:} spec of a tarball npm packed) whose
 * install script prints a fake credential of every shape the redaction knows, and the operator's
 * {@code .npmrc} shows scripts' output ({@code foreground-scripts}). What the step returns, fails
 * with and logs carries none.
 */
class NpmOutputRedactionTest {
  private static final String PACKAGE = "kandev-leaky-install";

  @TempDir Path dir;

  @Test
  void secretsInNpmsOutputAreInNoFailureDetailsOrLogOfTheUpdateStep() throws Exception {
    List<String> secrets = FakeSecrets.values();
    String spec = "file:" + leakyPackage();
    // no registry is asked for a file: spec; a closed port makes sure of it
    NpmSandbox sandbox = NpmSandbox.in(dir.resolve("npm"), "http://127.0.0.1:9/");
    Files.writeString(sandbox.home().resolve(".npmrc"), "foreground-scripts=true\n");
    NpmSettings npm = sandbox.settings();
    CommandRunner runner = new CommandRunner();

    CommandResult raw = runner.run(npm.updateCommand(spec), npm.environment(), Duration.ofSeconds(90), true);
    assertThat(String.join("\n", raw.stdout())).as("npm itself prints the secrets (else this test proves nothing)")
        .contains(secrets.get(1), secrets.get(secrets.size() - 1));

    RuntimeUpdateActivitiesImpl activities = new RuntimeUpdateActivitiesImpl(
        BuiltInAgents.KANDEV.with(new AgentRuntime(PACKAGE, spec, PACKAGE, List.of())), npm, runner,
        new NpmLaunch(npm, runner), null, null, null);
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    root.addAppender(logs);
    ApplicationFailure failure;
    try {
      failure = catchThrowableOfType(ApplicationFailure.class, () -> activities.runUpdate(new UpdateStep("job-1", PACKAGE, 1)));
    } finally {
      root.detachAppender(logs);
    }

    UpdateOutcome outcome = failure.getDetails().get(UpdateOutcome.class);
    ObjectMapper json = Json.mapper();
    String details = json.writeValueAsString(outcome);
    assertThat(details).as("the output tail is there, masked").contains("github token ***");
    String logged = String.join("\n", logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList());
    assertThat(List.of(failure.getOriginalMessage(), details, logged))
        .allSatisfy(text -> assertThat(text).doesNotContain(secrets.toArray(String[]::new)));
  }

  /** A package whose install script prints every fake secret line and fails, packed by npm: its tarball. */
  private Path leakyPackage() throws Exception {
    Path pkg = Files.createDirectories(dir.resolve("pkg"));
    // a bin as an agent's package has, and the script that leaks
    Files.createDirectories(pkg.resolve("bin"));
    Files.writeString(pkg.resolve("bin/" + PACKAGE + ".js"), "#!/usr/bin/env node\n");
    Files.writeString(pkg.resolve("package.json"), "{\"name\":\"" + PACKAGE + "\",\"version\":\"1.0.0\",\"bin\":{\""
        + PACKAGE + "\":\"bin/" + PACKAGE + ".js\"},\"scripts\":{\"install\":\"node leak.js\"}}\n");
    Files.writeString(pkg.resolve("leak.js"), "for (const line of " + Json.mapper().writeValueAsString(FakeSecrets.lines())
        + ") { console.log(line); }\nprocess.exit(1);\n");
    ProcessBuilder builder = new ProcessBuilder("npm", "pack", pkg.toString(), "--pack-destination", dir.toString(), "--silent")
        .redirectErrorStream(true).redirectOutput(dir.resolve("npm-pack.log").toFile());
    builder.environment().clear();
    builder.environment().putAll(Map.of("PATH", System.getenv("PATH"), "HOME", dir.toString(),
        "npm_config_cache", dir.resolve("pack-cache").toString()));
    Process pack = builder.start();
    assertThat(pack.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(pack.exitValue()).as(Files.readString(dir.resolve("npm-pack.log"))).isZero();
    return dir.resolve(PACKAGE + "-1.0.0.tgz");
  }
}
