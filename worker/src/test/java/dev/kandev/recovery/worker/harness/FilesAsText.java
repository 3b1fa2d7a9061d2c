package dev.kandev.recovery.worker.harness;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** What a test scans for secrets on disk: every file under a folder, as {@code path:\ncontent}. */
public final class FilesAsText {
  private FilesAsText() {}

  /** Every file under {@code dir}: logs, the state folder (the dev server's log and its SQLite histories), agent files. */
  public static List<String> under(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).map(FilesAsText::read).toList();
    }
  }

  private static String read(Path file) {
    try {
      return file + ":\n" + new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      return file + ": unreadable (" + e.getMessage() + ")";
    }
  }
}
