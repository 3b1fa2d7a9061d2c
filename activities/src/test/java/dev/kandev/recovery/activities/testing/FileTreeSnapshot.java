package dev.kandev.recovery.activities.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Every path under a directory with a digest of its content (or its link target), to compare before and after. */
public final class FileTreeSnapshot {
  private FileTreeSnapshot() {}

  public static Map<String, String> of(Path top) {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(top)) {
      paths.forEach(p -> files.put(top.relativize(p).toString(), describe(p)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static String describe(Path path) {
    try {
      if (Files.isSymbolicLink(path)) {
        return "link:" + Files.readSymbolicLink(path);
      }
      if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
        return "dir";
      }
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(path)));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
