package dev.kandev.recovery.activities.credentials.redemption;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The project's git credential helper: a POSIX sh script (needs {@code curl}) that answers git's
 * {@code get} by redeeming {@code $KANDEV_CREDENTIAL_LEASE} at {@code $KANDEV_CREDENTIAL_BROKER_URL}.
 * A script rather than a JVM subcommand because git runs the helper on every credential request.
 */
public final class CredentialHelper {
  public static final String FILE_NAME = "kandev-git-credential";
  /** A process's own helper directory: this prefix, its pid, a dash and a random part. */
  static final String DIRECTORY_PREFIX = "kandev-credential-helper-";
  /** At most 18 digits: any pid fits a long, so no name in the directory can make the parse fail. */
  private static final Pattern OWN_DIRECTORY = Pattern.compile(Pattern.quote(DIRECTORY_PREFIX) + "(\\d{1,18})-.*");
  private static final String RESOURCE = "/credential-helper/" + FILE_NAME;

  private CredentialHelper() {}

  /** Writes the helper into {@code directory} (created if needed), executable, and returns its path. */
  public static Path install(Path directory) {
    try (InputStream script = CredentialHelper.class.getResourceAsStream(RESOURCE)) {
      if (script == null) {
        throw new IllegalStateException("credential helper resource " + RESOURCE + " is missing");
      }
      Files.createDirectories(directory);
      Path target = directory.toAbsolutePath().resolve(FILE_NAME);
      Path temp = Files.createTempFile(directory, FILE_NAME, ".tmp");
      Files.copy(script, temp, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rwxr-xr-x"));
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot install the git credential helper into " + directory, e);
    }
  }

  /**
   * Installs the helper into a new directory of this process's under {@code root} (the system's
   * temporary directory), after removing those that processes now gone left there: a worker killed
   * with SIGKILL cannot remove its own, so the next one on the machine does.
   */
  public static Path installInDirectoryOfItsOwn(Path root) {
    removeThoseOfGoneProcesses(root);
    Path directory;
    try {
      directory = Files.createTempDirectory(root, DIRECTORY_PREFIX + ProcessHandle.current().pid() + "-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the git credential helper in " + root, e);
    }
    try {
      return install(directory);
    } catch (RuntimeException e) {
      uninstall(directory.resolve(FILE_NAME));
      throw e;
    }
  }

  private static void removeThoseOfGoneProcesses(Path root) {
    try (Stream<Path> entries = Files.list(root)) {
      entries.filter(entry -> {
        Matcher own = OWN_DIRECTORY.matcher(entry.getFileName().toString());
        return own.matches() && !ProcessHandle.of(Long.parseLong(own.group(1))).map(ProcessHandle::isAlive).orElse(false);
      }).forEach(gone -> {
        try {
          uninstall(gone.resolve(FILE_NAME));
        } catch (UncheckedIOException e) {
          // another process's files we may not remove: left as they are
        }
      });
    } catch (IOException e) {
      // nothing to clean in a root we cannot list; creating our own directory says what is wrong
    }
  }

  /**
   * Removes a helper {@link #install} wrote, and its directory once nothing else is in it; a helper
   * already gone is no error. Call it when no agent can run git with it any more.
   */
  public static void uninstall(Path helper) {
    try {
      Files.deleteIfExists(helper);
      Path directory = helper.getParent();
      try (var left = Files.list(directory)) {
        if (left.findAny().isEmpty()) {
          Files.deleteIfExists(directory);
        }
      }
    } catch (NoSuchFileException gone) {
      // its directory was removed already
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove the git credential helper " + helper, e);
    }
  }
}
