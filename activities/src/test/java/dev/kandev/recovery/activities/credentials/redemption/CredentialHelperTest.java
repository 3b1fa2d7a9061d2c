package dev.kandev.recovery.activities.credentials.redemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CredentialHelperTest {
  @TempDir Path dir;

  @Test
  void uninstallRemovesTheHelperAndItsEmptiedDirectory() {
    Path helper = CredentialHelper.install(dir.resolve("helper"));
    assertThat(helper).isExecutable().hasFileName(CredentialHelper.FILE_NAME);

    CredentialHelper.uninstall(helper);

    assertThat(helper.getParent()).doesNotExist();
    assertThatCode(() -> CredentialHelper.uninstall(helper)).as("a helper already gone").doesNotThrowAnyException();
  }

  @Test
  void uninstallLeavesADirectoryThatHoldsSomethingElse() throws IOException {
    Path helper = CredentialHelper.install(dir);
    Path other = Files.writeString(dir.resolve("other"), "kept");

    CredentialHelper.uninstall(helper);

    assertThat(helper).doesNotExist();
    assertThat(other).hasContent("kept");
  }

  @Test
  void aNewHelperDirectoryRemovesThoseOfGoneProcessesOnly() throws Exception {
    Process ended = new ProcessBuilder("true").start();
    ended.waitFor();
    Path gone = CredentialHelper.install(dir.resolve(CredentialHelper.DIRECTORY_PREFIX + ended.pid() + "-1"));
    Path alive = CredentialHelper.install(dir.resolve(CredentialHelper.DIRECTORY_PREFIX + ProcessHandle.current().pid() + "-2"));
    Path unrelated = Files.createDirectories(dir.resolve("kandev-credential-helper-of-someone"));
    Path notAPid = Files.createDirectories(dir.resolve(CredentialHelper.DIRECTORY_PREFIX + "9".repeat(30) + "-3"));

    Path helper = CredentialHelper.installInDirectoryOfItsOwn(dir);

    assertThat(helper).isExecutable();
    assertThat(helper.getParent().getFileName().toString())
        .startsWith(CredentialHelper.DIRECTORY_PREFIX + ProcessHandle.current().pid() + "-");
    assertThat(gone.getParent()).as("the directory of a process that is gone").doesNotExist();
    assertThat(alive).as("a live process's helper").isExecutable();
    assertThat(unrelated).exists();
    assertThat(notAPid).as("a name whose number is no pid").exists();
  }
}
