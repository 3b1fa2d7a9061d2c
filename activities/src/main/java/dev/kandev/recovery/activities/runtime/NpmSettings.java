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
  static final List<String> INHERITED = List.of(
      "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "NODE_EXTRA_CA_CERTS",
      "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
      "npm_config_cache", "npm_config_registry", "npm_config_userconfig");

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
   * From the worker's environment: KANDEV_NPM / KANDEV_NPX (executables), KANDEV_NPM_CACHE and
   * KANDEV_NPM_REGISTRY (become npm_config_cache / npm_config_registry), KANDEV_NPM_UPDATE_TIMEOUT
   * and KANDEV_NPM_PROBE_TIMEOUT (ISO-8601 durations, e.g. PT5M).
   */
  public static NpmSettings fromEnvironment(Map<String, String> env) {
    Map<String, String> child = new TreeMap<>();
    INHERITED.forEach(name -> {
      if (env.get(name) != null) {
        child.put(name, env.get(name));
      }
    });
    if (env.get("KANDEV_NPM_CACHE") != null) {
      child.put("npm_config_cache", env.get("KANDEV_NPM_CACHE"));
    }
    if (env.get("KANDEV_NPM_REGISTRY") != null) {
      child.put("npm_config_registry", env.get("KANDEV_NPM_REGISTRY"));
    }
    return new NpmSettings(
        env.getOrDefault("KANDEV_NPM", "npm"),
        env.getOrDefault("KANDEV_NPX", "npx"),
        child,
        Duration.parse(env.getOrDefault("KANDEV_NPM_UPDATE_TIMEOUT", "PT5M")),
        Duration.parse(env.getOrDefault("KANDEV_NPM_PROBE_TIMEOUT", "PT60S")),
        Duration.ofSeconds(30));
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
