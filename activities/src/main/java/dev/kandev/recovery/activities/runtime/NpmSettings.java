package dev.kandev.recovery.activities.runtime;

import dev.kandev.recovery.workflows.runtime.RuntimeStepTimeouts;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How the worker runs npm: the executables, the <em>complete</em> environment of every npm/npx
 * child (nothing else is inherited), and the time bounds.
 */
public record NpmSettings(
    String npm,
    String npx,
    Map<String, String> environment,
    Duration updateTimeout,
    Duration probeTimeout,
    Duration configTimeout) {

  /** Variables copied from the worker's environment into npm's; everything else stays out. */
  public static final List<String> INHERITED = List.of(
      "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "NODE_EXTRA_CA_CERTS",
      "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
      "npm_config_cache", "npm_config_registry", "npm_config_userconfig");

  /** The longest child bounds the update and probe steps leave room for (see {@link RuntimeStepTimeouts}). */
  public static final Duration MAX_UPDATE_TIMEOUT = RuntimeStepTimeouts.UPDATE.minus(RuntimeStepTimeouts.MARGIN);
  public static final Duration MAX_PROBE_TIMEOUT = RuntimeStepTimeouts.PROBE.minus(RuntimeStepTimeouts.MARGIN);

  public NpmSettings {
    environment = Map.copyOf(environment);
    requireWithin("update timeout", updateTimeout, RuntimeStepTimeouts.UPDATE);
    requireWithin("probe timeout", probeTimeout, RuntimeStepTimeouts.PROBE);
    requireWithin("npm config timeout", configTimeout, RuntimeStepTimeouts.REPAIR);
  }

  // The child's bound must end the step before Temporal's start-to-close timeout does.
  private static void requireWithin(String what, Duration bound, Duration stepTimeout) {
    if (bound.isNegative() || bound.isZero() || bound.plus(RuntimeStepTimeouts.MARGIN).compareTo(stepTimeout) > 0) {
      throw new IllegalArgumentException(what + " " + bound + " must be positive and at most "
          + stepTimeout.minus(RuntimeStepTimeouts.MARGIN) + " (the step's activity timeout is " + stepTimeout + ")");
    }
  }

  /**
   * The variables of {@code workerEnvironment} that every npm/npx child inherits ({@link #INHERITED});
   * the worker's settings read them once and add {@code npm_config_cache} / {@code npm_config_registry}.
   */
  public static Map<String, String> inheritedFrom(Map<String, String> workerEnvironment) {
    Map<String, String> child = new TreeMap<>();
    INHERITED.forEach(name -> {
      if (workerEnvironment.get(name) != null) {
        child.put(name, workerEnvironment.get(name));
      }
    });
    return child;
  }

  /** Kandev's update command: prepares the execution tree without running the agent. */
  public List<String> updateCommand(String packageSpec) {
    return List.of(npm, "exec", "--yes", "--prefer-online", "--package=" + packageSpec, "--", "node", "-e", "");
  }

  /** Kandev's launch command; normal launches never touch the npm cache beyond what npx does. */
  public List<String> launchCommand(String packageSpec, List<String> acpArgs) {
    List<String> argv = new java.util.ArrayList<>(List.of(npx, "--yes", "--prefer-offline", packageSpec));
    argv.addAll(acpArgs);
    return List.copyOf(argv);
  }

  public List<String> cacheRootCommand() {
    return List.of(npm, "config", "get", "cache");
  }
}
