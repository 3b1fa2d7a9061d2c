package dev.kandev.recovery.worker.harness;

import dev.kandev.recovery.activities.testing.TempFolders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The release after this one, built from this source tree as a release is built: a copy of the poms
 * and main sources with {@code worker/src/test/resources/upgrade/next-release.patch} applied (a
 * workflow change behind {@code getVersion("upgrade-drill")} and a write of the new column), the
 * next release's expand migration ({@code activities/src/test/resources/db/release-next-expand})
 * among its migrations, and the version {@link #nextVersion} of this one, packaged by {@code mvn -o
 * -DskipTests package} (offline: this build resolved all it needs; online if something is missing).
 * The jar and its {@code lib/} are kept under {@code worker/target/next-release/<hash of the
 * inputs>}, so a rerun on unchanged sources reuses them.
 *
 * <p>When the patch no longer applies (the lines it touches changed), regenerate it from a clean
 * checkout: make the same two changes again in {@code ResumeSaga} and {@code
 * MirrorSessionStore}, then {@code git diff -U1 workflows activities >
 * worker/src/test/resources/upgrade/next-release.patch} and {@code git checkout -- workflows activities}.
 */
public final class NextRelease {
  private static final List<String> MODULES = List.of("workflows", "activities", "worker");
  private static final String PATCH = "worker/src/test/resources/upgrade/next-release.patch";
  private static final String EXPAND_MIGRATIONS = "activities/src/test/resources/db/release-next-expand";
  private static final Pattern PARENT_VERSION =
      Pattern.compile("<artifactId>kandev-recovery-parent</artifactId>\\s*<version>([^<]+)</version>");

  /** The packaged jar of the next release (its {@code lib/} beside it) and its version. */
  public record Build(Path jar, String version) {}

  private NextRelease() {}

  /** The version this source tree builds, from its root pom. */
  public static String currentVersion(Path root) {
    Matcher m = PARENT_VERSION.matcher(read(root.resolve("pom.xml")));
    if (!m.find()) {
      throw new IllegalStateException("no version of kandev-recovery-parent in " + root.resolve("pom.xml"));
    }
    return m.group(1);
  }

  /** {@code 0.2.0-SNAPSHOT} → {@code 0.2.0-next-SNAPSHOT}, {@code 0.2.0} → {@code 0.2.0-next}. */
  public static String nextVersion(String version) {
    return version.endsWith("-SNAPSHOT")
        ? version.substring(0, version.length() - "-SNAPSHOT".length()) + "-next-SNAPSHOT"
        : version + "-next";
  }

  /** The source tree of the packaged jar under test ({@code <root>/worker/target/kandev-recovery.jar}). */
  public static Path sourceRoot() {
    return KandevProcess.jar().toAbsolutePath().getParent().getParent().getParent();
  }

  /** Builds the next release from {@code root}, or reuses the one built from the same inputs. */
  public static Build build(Path root, Duration within) throws IOException {
    List<Path> inputs = inputs(root);
    String version = nextVersion(currentVersion(root));
    Path cached = root.resolve("worker/target/next-release").resolve(hash(root, inputs));
    Path jar = cached.resolve("kandev-recovery.jar");
    if (Files.isRegularFile(jar)) {
      return new Build(jar, version);
    }
    TempFolders.delete(cached.getParent()); // the builds of older sources: 50 MB each
    Path copy = Files.createTempDirectory("kandev-next-release-");
    try {
      for (Path input : inputs) {
        Path target = copy.resolve(root.relativize(input).toString());
        Files.createDirectories(target.getParent());
        Files.copy(input, target);
      }
      applyPatch(copy, root.resolve(PATCH));
      try (Stream<Path> migrations = Files.list(root.resolve(EXPAND_MIGRATIONS))) {
        for (Path migration : migrations.toList()) {
          Files.copy(migration, copy.resolve("activities/src/main/resources/db/migration").resolve(migration.getFileName()));
        }
      }
      setVersion(copy, currentVersion(root), version);
      try {
        run(copy, within, "mvn", "-B", "-q", "-o", "-DskipTests", "package");
      } catch (AssertionError e) {
        if (!e.getMessage().contains("offline")) {
          throw e;
        }
        // A plugin or dependency this build's own run never needed: fetched like any build's.
        run(copy, within, "mvn", "-B", "-q", "-DskipTests", "package");
      }
      Path built = copy.resolve("worker/target");
      Path staging = cached.resolveSibling(cached.getFileName() + ".partial");
      Files.createDirectories(staging.resolve("lib"));
      try (Stream<Path> libs = Files.list(built.resolve("lib"))) {
        for (Path lib : libs.toList()) {
          Files.copy(lib, staging.resolve("lib").resolve(lib.getFileName()));
        }
      }
      Files.copy(built.resolve("kandev-recovery.jar"), staging.resolve("kandev-recovery.jar"));
      Files.move(staging, cached, StandardCopyOption.ATOMIC_MOVE);
      return new Build(jar, version);
    } finally {
      TempFolders.delete(copy);
    }
  }

  /** What {@code mvn package} reads (the poms, {@code .mvn/}, every module's main sources), the patch and the migrations. */
  private static List<Path> inputs(Path root) throws IOException {
    List<Path> inputs = new ArrayList<>(List.of(root.resolve("pom.xml")));
    if (Files.isDirectory(root.resolve(".mvn"))) {
      try (Stream<Path> files = Files.walk(root.resolve(".mvn"))) {
        files.filter(Files::isRegularFile).sorted().forEach(inputs::add);
      }
    }
    for (String module : MODULES) {
      inputs.add(root.resolve(module).resolve("pom.xml"));
      try (Stream<Path> files = Files.walk(root.resolve(module).resolve("src/main"))) {
        files.filter(Files::isRegularFile).sorted().forEach(inputs::add);
      }
    }
    inputs.add(root.resolve(PATCH));
    try (Stream<Path> files = Files.list(root.resolve(EXPAND_MIGRATIONS))) {
      files.sorted().forEach(inputs::add);
    }
    return inputs;
  }

  private static String hash(Path root, List<Path> inputs) throws IOException {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (Path input : inputs) {
        digest.update(root.relativize(input).toString().getBytes(StandardCharsets.UTF_8));
        digest.update((byte) 0);
        digest.update(Files.readAllBytes(input));
      }
      return HexFormat.of().formatHex(digest.digest()).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void applyPatch(Path copy, Path patch) {
    try {
      run(copy, Duration.ofSeconds(30), "git", "apply", "--whitespace=nowarn", patch.toString());
    } catch (AssertionError e) {
      throw new AssertionError("the upgrade fixture patch no longer applies: regenerate it with the steps in "
          + NextRelease.class.getSimpleName() + "'s javadoc (" + PATCH + ")\n" + e.getMessage(), e);
    }
  }

  /** The version of the parent and of each module's parent reference: the same literal in each pom. */
  private static void setVersion(Path copy, String from, String to) {
    List<Path> poms = new ArrayList<>(List.of(copy.resolve("pom.xml")));
    MODULES.forEach(module -> poms.add(copy.resolve(module).resolve("pom.xml")));
    for (Path pom : poms) {
      String text = read(pom);
      String tag = "<version>" + from + "</version>";
      if (!text.contains(tag)) {
        throw new IllegalStateException(pom + " has no " + tag);
      }
      write(pom, text.replace(tag, "<version>" + to + "</version>"));
    }
  }

  private static void run(Path dir, Duration within, String... command) {
    try {
      Path log = Files.createTempFile(dir, "command-", ".log");
      ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
          .redirectErrorStream(true).redirectOutput(log.toFile());
      // git must not take a repository above the copy (a temporary folder inside a checkout) for its own.
      builder.environment().put("GIT_CEILING_DIRECTORIES", dir.getParent().toString());
      // A short build, mostly javac in Maven's JVM: the quick JIT alone and the serial GC halve it on 2 cores.
      builder.environment().merge("MAVEN_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC", (mine, quick) -> mine + " " + quick);
      Process process = builder.start();
      if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not end within " + within + ":\n" + read(log));
      }
      if (process.exitValue() != 0) {
        throw new AssertionError(String.join(" ", command) + " failed (" + process.exitValue() + "):\n" + read(log));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
