package dev.kandev.recovery.activities.credentials.redemption;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The project's git credential helper: a POSIX sh script (needs {@code curl}) that answers git's
 * {@code get} by redeeming {@code $KANDEV_CREDENTIAL_LEASE} at {@code $KANDEV_CREDENTIAL_BROKER_URL}.
 * A script rather than a JVM subcommand because git runs the helper on every credential request.
 */
public final class CredentialHelper {
  public static final String FILE_NAME = "kandev-git-credential";
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
