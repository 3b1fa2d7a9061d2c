package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.testing.LocalNpmRegistry;
import dev.kandev.recovery.activities.testing.NpmSandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real npm: the directory npx creates for a registry spec is the one {@link NpxKey} names. */
class NpxKeyMatchesNpmTest {
  @TempDir Path dir;

  @Test
  void npxExtractsARegistrySpecIntoTheDirectoryOurKeyNames() throws Exception {
    try (LocalNpmRegistry registry = LocalNpmRegistry.serveTestAgent(dir)) {
      NpmSandbox sandbox = NpmSandbox.in(dir, registry.url());
      NpmSettings npm = sandbox.settings();
      CommandRunner runner = new CommandRunner();

      for (String spec : new String[] {"kandev-test-agent", "kandev-test-agent@1.0.0"}) {
        CommandResult result = runner.run(npm.updateCommand(spec), npm.environment(), Duration.ofSeconds(60), true);
        assertThat(result.succeeded()).as(result.describe()).isTrue();
        assertThat(sandbox.npxTree(spec).resolve("node_modules/kandev-test-agent/bin/kandev-test-agent.js"))
            .isRegularFile();
      }
      try (Stream<Path> trees = Files.list(sandbox.cache().resolve("_npx"))) {
        assertThat(trees.map(p -> p.getFileName().toString()))
            .containsExactlyInAnyOrder(NpxKey.of("kandev-test-agent"), NpxKey.of("kandev-test-agent@1.0.0"));
      }
    }
  }
}
