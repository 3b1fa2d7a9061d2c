package dev.kandev.recovery.activities.runtime;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.agent.AgentCommands;
import dev.kandev.recovery.activities.agent.AgentProfile;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.workflows.runtime.AgentRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a built-in npm agent is started, decided at each launch: the bin of its installed execution
 * tree ({@code <npm cache>/_npx/<key>}) run directly when that tree is healthy, else the npx command
 * exactly as before. npx itself starts the same bin (on POSIX it runs the tree's {@code .bin} link
 * through {@code sh}, so the kernel honours the bin's shebang), after 0.5–1 s of npm starting up
 * and resolving the tree; running the file skips only that. Reads the cache, never writes it.
 *
 * <p>Healthy: the package's {@code package.json} in the tree names the package, declares the bin
 * npx would choose, and that bin is a relative path without {@code ..} whose real path (links
 * followed) is an executable file inside the tree; the tree itself is not a symlink. The cache root
 * is the worker's {@code npm_config_cache}, else what {@code npm config get cache} says (asked
 * at the first launch, remembered once it answered). Configured profiles (no {@link AgentProfile#builtIn()}) are started as configured.
 */
public final class NpmLaunch implements AgentCommands {
  private static final Logger log = LoggerFactory.getLogger(NpmLaunch.class);
  /** npm's rule for a package name; a spec with a version or tag is left to npx, which resolves it. */
  private static final Pattern BARE_NAME =
      Pattern.compile("(?:@[a-z0-9-*~][a-z0-9-*._~]*/)?[a-z0-9-~][a-z0-9-._~]*");
  private static final long MAX_MANIFEST_BYTES = 1 << 20;

  private final NpmSettings npm;
  private final CommandRunner runner;
  private volatile Path knownCacheRoot;

  public NpmLaunch(NpmSettings npm, CommandRunner runner) {
    this.npm = npm;
    this.runner = runner;
  }

  /** The argv that starts {@code agent} now, and why it is npx when it is. */
  public record Plan(List<String> argv, Path bin, String fallbackReason) {
    public Plan {
      argv = List.copyOf(argv);
    }

    public boolean direct() {
      return bin != null;
    }
  }

  /** A built-in profile's installed bin if healthy, else its own argv (the npx command); any other profile's argv. */
  @Override
  public List<String> argv(AgentProfile profile) {
    if (profile.builtIn() == null) {
      return profile.argv();
    }
    Plan plan = plan(profile.builtIn());
    return plan.direct() ? plan.argv() : profile.argv();
  }

  /** Decides how {@code agent} starts now; logs one line saying which way and why. */
  public Plan plan(AgentRuntime agent) {
    List<String> npx = npm.launchCommand(agent.packageSpec(), agent.acpArgs());
    try {
      Path bin = installedBin(cacheRoot(), agent.packageSpec());
      List<String> argv = new ArrayList<>(List.of(bin.toString()));
      argv.addAll(agent.acpArgs());
      log.info("agent {} starts from its installed bin {}", agent.agentId(), bin);
      return new Plan(argv, bin, null);
    } catch (NotHealthy | CacheRepairException e) {
      log.info("agent {} starts with npx: {}", agent.agentId(), e.getMessage());
      return new Plan(npx, null, e.getMessage());
    }
  }

  private Path cacheRoot() throws CacheRepairException {
    Path root = knownCacheRoot;
    if (root == null) {
      String configured = npm.environment().get("npm_config_cache");
      root = configured != null ? NpmCacheRoot.validate(configured) : new NpmCacheRoot(npm, runner).resolve();
      knownCacheRoot = root;
    }
    return root;
  }

  /** The real path of the bin npx would run from the execution tree of {@code spec} under {@code cacheRoot}. */
  static Path installedBin(Path cacheRoot, String spec) throws NotHealthy {
    if (!BARE_NAME.matcher(spec).matches()) {
      throw new NotHealthy("spec '" + spec + "' is not a bare package name (npx resolves versions and tags)");
    }
    Path tree = cacheRoot.resolve("_npx").resolve(NpxKey.of(spec));
    if (Files.isSymbolicLink(tree)) {
      throw new NotHealthy("the execution tree " + tree + " is a symlink");
    }
    if (!Files.isDirectory(tree, NOFOLLOW_LINKS)) {
      throw new NotHealthy("no execution tree at " + tree);
    }
    try {
      Path treeReal = tree.toRealPath();
      Path packageDir = tree.resolve("node_modules").resolve(spec);
      Path manifestFile = inside(treeReal, packageDir.resolve("package.json"), "its package.json");
      if (Files.size(manifestFile) > MAX_MANIFEST_BYTES) {
        throw new NotHealthy("its package.json is larger than " + MAX_MANIFEST_BYTES + " bytes");
      }
      JsonNode manifest = Json.mapper().readTree(manifestFile.toFile());
      if (manifest == null || !spec.equals(manifest.path("name").asText(null))) {
        throw new NotHealthy("its package.json does not name " + spec);
      }
      String declared = chosenBin(manifest, spec);
      Path relative = Path.of(declared);
      if (declared.isEmpty() || relative.isAbsolute() || declared.contains("\\")
          || List.of(declared.split("/")).contains("..")) {
        throw new NotHealthy("its bin '" + declared + "' is not a plain relative path inside the package");
      }
      Path bin = inside(treeReal, packageDir.resolve(relative), "its bin " + declared);
      if (!Files.isExecutable(bin)) {
        throw new NotHealthy("its bin " + bin + " is not executable");
      }
      return bin;
    } catch (InvalidPathException e) {
      throw new NotHealthy("its bin is not a path: " + e.getMessage());
    } catch (IOException e) {
      throw new NotHealthy("cannot read the execution tree " + tree + ": " + e.getMessage());
    }
  }

  /** The real path of {@code path}, which must be a regular file inside {@code treeReal}. */
  private static Path inside(Path treeReal, Path path, String what) throws IOException, NotHealthy {
    Path real;
    try {
      real = path.toRealPath();
    } catch (NoSuchFileException e) {
      throw new NotHealthy(what + " is missing (" + path + ")");
    }
    if (!real.startsWith(treeReal)) {
      throw new NotHealthy(what + " leads out of the execution tree (" + path + " -> " + real + ")");
    }
    if (!Files.isRegularFile(real)) {
      throw new NotHealthy(what + " is not a file (" + real + ")");
    }
    return real;
  }

  /** npm's choice (libnpmexec getBinFromManifest): the only bin, else the one named like the package. */
  private static String chosenBin(JsonNode manifest, String spec) throws NotHealthy {
    String unscoped = spec.replaceFirst("^@[^/]+/", "");
    JsonNode bin = manifest.path("bin");
    Map<String, String> bins = new LinkedHashMap<>();
    if (bin.isTextual()) {
      bins.put(unscoped, bin.asText());
    } else if (bin.isObject()) {
      bin.properties().forEach(e -> {
        if (e.getValue().isTextual()) {
          bins.put(e.getKey(), e.getValue().asText());
        }
      });
    }
    if (!bins.isEmpty() && bins.values().stream().distinct().count() == 1) {
      return bins.values().iterator().next();
    }
    if (bins.containsKey(unscoped)) {
      return bins.get(unscoped);
    }
    throw new NotHealthy("its package.json declares no bin npx would run");
  }

  /** Why a tree is not launched directly; the launch falls back to npx. */
  static final class NotHealthy extends Exception {
    NotHealthy(String message) {
      super(message);
    }
  }
}
