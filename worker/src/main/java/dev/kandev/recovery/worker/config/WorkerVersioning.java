package dev.kandev.recovery.worker.config;

import java.util.regex.Pattern;

/**
 * Temporal Worker Deployment Versioning of this worker (docs/upgrades.md, docs/decisions/0002):
 * when {@code enabled}, its workers poll as version {@code deploymentName}/{@code buildId}, and each
 * workflow runs on the version its behaviour says (pinned or auto-upgrade). Off, they poll
 * unversioned, as {@code dev} always does.
 *
 * @param buildId this release's build id: the jar's version unless KANDEV_BUILD_ID says otherwise
 */
public record WorkerVersioning(boolean enabled, String deploymentName, String buildId) {
  public static final String DEFAULT_DEPLOYMENT_NAME = "kandev-recovery";
  /** The server joins them as {@code name.buildId} in places, so a name has no dot. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,200}");
  private static final Pattern BUILD_ID = Pattern.compile("[A-Za-z0-9._+-]{1,200}");

  public WorkerVersioning {
    if (!NAME.matcher(deploymentName).matches()) {
      throw new IllegalArgumentException("KANDEV_DEPLOYMENT_NAME must be 1 to 200 letters, digits, '_' or '-', got '"
          + deploymentName + "'");
    }
    if (!BUILD_ID.matcher(buildId).matches()) {
      throw new IllegalArgumentException("KANDEV_BUILD_ID must be 1 to 200 letters, digits, '.', '_', '+' or '-', got '"
          + buildId + "'");
    }
  }

  /** The same build, polling unversioned ({@code dev}). */
  public WorkerVersioning off() {
    return new WorkerVersioning(false, deploymentName, buildId);
  }

  /** For the banner: what the worker polls as. */
  public String describe() {
    return enabled
        ? "on: deployment " + deploymentName + ", build id " + buildId + " (runs go where their versioning behaviour says;"
            + " a new version takes new runs once it is made current, docs/upgrades.md)"
        : "off: unversioned worker, build id " + buildId + " (set KANDEV_WORKER_VERSIONING=true for versioned deploys)";
  }
}
