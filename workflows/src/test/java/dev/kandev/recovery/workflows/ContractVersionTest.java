package dev.kandev.recovery.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflowImpl;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateRequest;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflowImpl;
import io.temporal.common.VersioningBehavior;
import io.temporal.workflow.WorkflowVersioningBehavior;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The contract version is stated once per language and they agree (docs/contract.md, the Java
 * constant, the Go starter's), and each workflow keeps the versioning behaviour ADR 0002 chose.
 */
class ContractVersionTest {
  @Test
  void theDocsTheJavaAndTheGoStarterStateOneContractVersion() throws IOException {
    assertThat(version("docs/contract.md", "Contract version: \\*\\*(\\d+\\.\\d+)\\*\\*")).isEqualTo(ContractVersion.CURRENT);
    assertThat(version("starters/go/contract.go", "ContractVersion = \"(\\d+\\.\\d+)\"")).isEqualTo(ContractVersion.CURRENT);
  }

  @Test
  void versionedWorkersPinResumesAndAutoUpgradeRuntimeUpdatesUnversionedOnesDeclareNoBehaviour()
      throws NoSuchMethodException {
    assertThat(ResumeSessionWorkflowImpl.Pinned.class.getMethod("resume", ResumeRequest.class)
        .getAnnotation(WorkflowVersioningBehavior.class).value()).isEqualTo(VersioningBehavior.PINNED);
    assertThat(RuntimeUpdateWorkflowImpl.AutoUpgrade.class.getMethod("update", RuntimeUpdateRequest.class)
        .getAnnotation(WorkflowVersioningBehavior.class).value()).isEqualTo(VersioningBehavior.AUTO_UPGRADE);
    // a real server refuses a workflow task that declares a behaviour from a worker that is not versioned
    assertThat(ResumeSessionWorkflowImpl.class.getMethod("resume", ResumeRequest.class)
        .getAnnotation(WorkflowVersioningBehavior.class)).isNull();
    assertThat(RuntimeUpdateWorkflowImpl.class.getMethod("update", RuntimeUpdateRequest.class)
        .getAnnotation(WorkflowVersioningBehavior.class)).isNull();
  }

  private static String version(String file, String pattern) throws IOException {
    Matcher m = Pattern.compile(pattern).matcher(Files.readString(repository().resolve(file), StandardCharsets.UTF_8));
    assertThat(m.find()).as("%s states the contract version (%s)", file, pattern).isTrue();
    return m.group(1);
  }

  private static Path repository() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("docs/contract.md"))) {
        return dir;
      }
    }
    throw new IllegalStateException("docs/contract.md not found above " + Path.of("").toAbsolutePath());
  }
}
