package dev.kandev.recovery.activities.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Temporary folders of test extensions (what {@code @TempDir} is to a test class). */
public final class TempFolders {
  private TempFolders() {}

  /**
   * A new folder that JUnit deletes when {@code context} closes, i.e. after every after-each
   * callback has run (so after the processes that wrote into it were stopped).
   */
  public static Path create(ExtensionContext context, String prefix) {
    try {
      Path folder = Files.createTempDirectory(prefix);
      context.getStore(ExtensionContext.Namespace.create(TempFolders.class, folder))
          .put(folder, (AutoCloseable) () -> delete(folder));
      return folder;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Kills (SIGKILL) and waits for every process whose command line names the folder: what a test's
   * processes left behind (e.g. a server a killed parent left running), before the folder goes.
   */
  public static void killProcessesUsing(Path folder) {
    String name = folder.toString();
    ProcessHandle.allProcesses()
        .filter(p -> p.info().arguments().map(args -> String.join(" ", args).contains(name)).orElse(false))
        .forEach(p -> {
          p.destroyForcibly();
          p.onExit().join();
        });
  }

  /** Deletes the folder and everything in it; a folder already gone (or none: null) is fine. */
  public static void delete(Path folder) throws IOException {
    if (folder == null || !Files.exists(folder)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(folder)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
