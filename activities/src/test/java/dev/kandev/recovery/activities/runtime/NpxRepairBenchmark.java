package dev.kandev.recovery.activities.runtime;

import dev.kandev.recovery.activities.testing.bench.Latencies;
import dev.kandev.recovery.activities.testing.bench.Machine;
import dev.kandev.recovery.activities.testing.bench.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The targeted repair's two parts: the {@code _npx} key of a spec, and removing one execution tree
 * of 5,000 files (the descriptor-relative walk) next to a sibling tree that must survive.
 */
@Tag("benchmark")
class NpxRepairBenchmark {
  private static final String[] SPECS = {
    "@agentclientprotocol/claude-agent-acp", "@agentclientprotocol/codex-acp", "opencode-ai",
    "@github/copilot", "@google/gemini-cli"
  };
  private static final int KEY_BATCH = 1_000;
  private static final int KEY_BATCHES = 200;
  private static final String SPEC = "opencode-ai";
  private static final int DIRS_PER_PACKAGE = 10;
  private static final int FILES_PER_DIR = 10;
  private static final int PACKAGES = 50;
  private static final int FILES = PACKAGES * DIRS_PER_PACKAGE * FILES_PER_DIR;
  /** Few on purpose: creating the files costs far more than removing them (~1 ms each on this VM's disk). */
  private static final int REPAIRS = 3;

  @TempDir Path dir;

  @Test
  void keyAndTreeRepair() throws Exception {
    Table table = new Table("_npx key and targeted tree repair", "items/s");

    keyBatches(KEY_BATCHES / 4);
    Latencies keys = keyBatches(KEY_BATCHES);
    table.row("NpxKey.of, per batch of " + KEY_BATCH + " calls", keys.count(),
        KEY_BATCH / (keys.medianMillis() / 1e3), keys);

    Path root = Files.createDirectories(dir.resolve("npm-cache"));
    Path sibling = root.resolve("_npx/keep-me/node_modules/other/package.json");
    write(sibling);
    repair(root, PACKAGES / 10);
    Latencies repairs = new Latencies();
    for (int i = 0; i < REPAIRS; i++) {
      repairs.add(repair(root, PACKAGES));
    }
    if (!Files.exists(sibling)) {
      throw new IllegalStateException("the repair removed a sibling tree");
    }
    table.row("NpxExecutionTree.invalidate, " + FILES + " files", repairs.count(),
        FILES / (repairs.medianMillis() / 1e3), repairs);
    table.note("items/s: keys per second, or files removed per second, at the median.");
    table.print(Machine.describe() + ", temp filesystem " + Files.getFileStore(dir).type());
  }

  private static Latencies keyBatches(int batches) {
    Latencies latencies = new Latencies();
    int sink = 0;
    for (int b = 0; b < batches; b++) {
      long begin = System.nanoTime();
      for (int i = 0; i < KEY_BATCH; i++) {
        sink += NpxKey.of(SPECS[i % SPECS.length]).charAt(0);
      }
      latencies.add(System.nanoTime() - begin);
    }
    if (sink == 42) { // keeps the JIT from dropping the calls as dead code
      System.out.print("");
    }
    return latencies;
  }

  /**
   * Builds a fresh tree of {@code packages} × 100 empty files (10 directories of 10) for the spec, untimed (empty: writing
   * content would only slow the set-up, unlinking a small file costs the same); returns the
   * repair's nanos.
   */
  private static long repair(Path root, int packages) throws Exception {
    Path tree = root.resolve("_npx").resolve(NpxKey.of(SPEC)).resolve("node_modules");
    for (int p = 0; p < packages; p++) {
      for (int d = 0; d < DIRS_PER_PACKAGE; d++) {
        Path lib = Files.createDirectories(tree.resolve("pkg-" + p + "/lib-" + d));
        for (int f = 0; f < FILES_PER_DIR; f++) {
          Files.createFile(lib.resolve("file-" + f + ".js"));
        }
      }
    }
    long begin = System.nanoTime();
    boolean removed = NpxExecutionTree.invalidate(root, SPEC).removed();
    long nanos = System.nanoTime() - begin;
    if (!removed) {
      throw new IllegalStateException("nothing was removed");
    }
    return nanos;
  }

  private static void write(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, "module.exports = {};\n");
  }
}
