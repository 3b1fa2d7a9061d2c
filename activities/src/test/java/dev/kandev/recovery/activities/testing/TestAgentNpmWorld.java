package dev.kandev.recovery.activities.testing;

import dev.kandev.recovery.activities.runtime.CommandResult;
import dev.kandev.recovery.activities.runtime.CommandRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension (register it on a static field): the project's test agent packed once per
 * class, and for each test a loopback registry serving it and a private npm world
 * ({@link NpmSandbox}) in a fresh directory, removed after the test.
 */
public final class TestAgentNpmWorld implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private Path packDir;
  private byte[] tarball;
  private Path dir;
  private LocalNpmRegistry registry;
  private NpmSandbox sandbox;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    packDir = Files.createTempDirectory("kandev-npm-pack-");
    tarball = TestAgentPackage.pack(packDir);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    dir = Files.createTempDirectory("kandev-npm-");
    registry = LocalNpmRegistry.serve(TestAgentPackage.NAME, TestAgentPackage.VERSION, tarball);
    sandbox = NpmSandbox.in(dir, registry.url());
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    registry.close();
    TempFolders.delete(dir);
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    TempFolders.delete(packDir);
  }

  /** This test's directory (the sandbox's home and cache are in it). */
  public Path dir() {
    return dir;
  }

  public LocalNpmRegistry registry() {
    return registry;
  }

  public NpmSandbox sandbox() {
    return sandbox;
  }

  /** What a first normal launch does: npx installs the tree and starts the agent, which exits on the closed stdin. */
  public Path installThroughNpx() {
    CommandResult result = new CommandRunner().run(sandbox.settings().launchCommand(TestAgentPackage.NAME, List.of()),
        sandbox.environment(), Duration.ofSeconds(60), true);
    Path tree = sandbox.npxTree(TestAgentPackage.NAME);
    if (!result.succeeded() || !Files.isDirectory(tree)) {
      throw new IllegalStateException("npx did not install " + TestAgentPackage.NAME + ": " + result.describe());
    }
    return tree;
  }
}
