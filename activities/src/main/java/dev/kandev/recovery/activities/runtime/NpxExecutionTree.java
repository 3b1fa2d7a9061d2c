package dev.kandev.recovery.activities.runtime;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import dev.kandev.recovery.workflows.runtime.RepairOutcome;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes exactly one package's execution tree, {@code <root>/_npx/<key>}, and nothing else.
 *
 * <p>The walk is descriptor-relative ({@link SecureDirectoryStream}, openat/unlinkat with
 * O_NOFOLLOW on Unix): the root, {@code _npx} and the key directory are each opened without
 * following links, so a symlink at any of them is refused and a link swapped in during the walk
 * cannot redirect the deletion outside {@code <root>/_npx}. Links inside the tree are unlinked,
 * never followed. A missing root, {@code _npx} or key directory means nothing to remove.
 */
public final class NpxExecutionTree {
  private NpxExecutionTree() {}

  public static RepairOutcome invalidate(Path cacheRoot, String packageSpec) throws CacheRepairException {
    Path root = NpmCacheRoot.validate(cacheRoot.toString());
    String key = NpxKey.of(packageSpec);
    Path npx = root.resolve("_npx");
    Path target = npx.resolve(key);
    if (!target.getParent().equals(npx) || !npx.relativize(target).toString().equals(key)) {
      throw CacheRepairException.refused("refusing " + target + ": not directly inside " + npx);
    }
    if (!Files.exists(root, NOFOLLOW_LINKS)) {
      return new RepairOutcome(root.toString(), key, target.toString(), false);
    }
    if (!isPlainDirectory(root)) {
      throw CacheRepairException.refused("refusing to repair: npm cache root " + root + " is a symlink or not a directory");
    }
    try (DirectoryStream<Path> rootStream = Files.newDirectoryStream(root)) {
      if (!(rootStream instanceof SecureDirectoryStream<Path> secureRoot)) {
        throw CacheRepairException.refused("refusing to repair: this platform has no descriptor-relative directory walk");
      }
      if (!exists(secureRoot, Path.of("_npx"))) {
        return new RepairOutcome(root.toString(), key, target.toString(), false);
      }
      try (SecureDirectoryStream<Path> npxStream = openNoFollow(secureRoot, Path.of("_npx"), npx)) {
        Path keyName = Path.of(key);
        if (!exists(npxStream, keyName)) {
          return new RepairOutcome(root.toString(), key, target.toString(), false);
        }
        BasicFileAttributes attributes = attributes(npxStream, keyName);
        if (attributes.isSymbolicLink()) {
          throw CacheRepairException.refused("refusing to remove " + target + ": it is a symlink");
        }
        if (!attributes.isDirectory()) {
          throw CacheRepairException.refused("refusing to remove " + target + ": it is not a directory");
        }
        deleteTree(npxStream, keyName, target);
      }
    } catch (IOException e) {
      throw CacheRepairException.failed("remove " + target + ": " + e.getMessage(), e);
    }
    return new RepairOutcome(root.toString(), key, target.toString(), true);
  }

  private static boolean isPlainDirectory(Path path) {
    return Files.isDirectory(path, NOFOLLOW_LINKS) && !Files.isSymbolicLink(path);
  }

  private static SecureDirectoryStream<Path> openNoFollow(SecureDirectoryStream<Path> parent, Path name, Path shown)
      throws IOException, CacheRepairException {
    BasicFileAttributes attributes = attributes(parent, name);
    if (attributes.isSymbolicLink() || !attributes.isDirectory()) {
      throw CacheRepairException.refused("refusing to repair: " + shown + " is a symlink or not a directory");
    }
    try {
      return parent.newDirectoryStream(name, NOFOLLOW_LINKS);
    } catch (FileSystemException e) {
      throw CacheRepairException.refused("refusing to repair: cannot open " + shown + " without following links", e);
    }
  }

  private static void deleteTree(SecureDirectoryStream<Path> parent, Path name, Path shown) throws IOException {
    try (SecureDirectoryStream<Path> dir = parent.newDirectoryStream(name, NOFOLLOW_LINKS)) {
      List<Path> entries = new ArrayList<>();
      dir.forEach(entry -> entries.add(entry.getFileName()));
      for (Path entry : entries) {
        BasicFileAttributes attributes = attributes(dir, entry);
        if (attributes.isDirectory() && !attributes.isSymbolicLink()) {
          deleteTree(dir, entry, shown.resolve(entry));
        } else {
          dir.deleteFile(entry);
        }
      }
    }
    parent.deleteDirectory(name);
  }

  private static boolean exists(SecureDirectoryStream<Path> dir, Path name) throws IOException {
    try {
      attributes(dir, name);
      return true;
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  private static BasicFileAttributes attributes(SecureDirectoryStream<Path> dir, Path name) throws IOException {
    return dir.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW_LINKS).readAttributes();
  }
}
