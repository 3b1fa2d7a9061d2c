package dev.kandev.recovery.activities.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kandev.recovery.workflows.runtime.RepairOutcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Path safety of the targeted repair: exactly {@code <root>/_npx/<key>}, never anything else. */
class NpxExecutionTreeTest {
  private static final String SPEC = "opencode-ai";
  private static final String KEY = "e2094862b59aac7b";

  @TempDir Path dir;
  private Path root;
  private Path npx;

  @BeforeEach
  void cache() throws IOException {
    root = Files.createDirectories(dir.resolve("npm-cache"));
    npx = Files.createDirectories(root.resolve("_npx"));
    write(root.resolve("_cacache/index-v5/aa/entry"), "content index");
    write(npx.resolve("keep-me/node_modules/other/package.json"), "{}");
  }

  @Test
  void removesExactlyTheKeyDirectoryOfTheSpec() throws Exception {
    write(npx.resolve(KEY + "/node_modules/opencode-ai/package.json"), "");
    write(npx.resolve(KEY + "/package.json"), "{\"dependencies\":{}}");
    Files.createSymbolicLink(npx.resolve(KEY + "/node_modules/.bin-link"), root.resolve("_cacache"));
    List<String> before = tree(root).stream().filter(p -> !p.contains(KEY)).toList();

    RepairOutcome outcome = NpxExecutionTree.invalidate(root, SPEC);

    assertThat(outcome).isEqualTo(new RepairOutcome(root.toString(), KEY, npx.resolve(KEY).toString(), true));
    assertThat(npx.resolve(KEY)).doesNotExist();
    // a symlink inside the tree was unlinked, not followed: the content cache is intact
    assertThat(tree(root)).containsExactlyElementsOf(before);
  }

  @Test
  void aMissingKeyDirectoryIsNothingToRemove() throws Exception {
    List<String> before = tree(root);

    assertThat(NpxExecutionTree.invalidate(root, SPEC).removed()).isFalse();
    assertThat(tree(root)).isEqualTo(before);
  }

  @Test
  void aMissingCacheRootOrNpxDirectoryIsNothingToRemove() throws Exception {
    assertThat(NpxExecutionTree.invalidate(dir.resolve("absent"), SPEC).removed()).isFalse();
    Path bare = Files.createDirectories(dir.resolve("bare-cache"));
    assertThat(NpxExecutionTree.invalidate(bare, SPEC).removed()).isFalse();
  }

  @Test
  void aRelativeCacheRootIsRefused() {
    assertRefused(Path.of("npm-cache"), "not absolute");
  }

  @Test
  void theFilesystemRootIsRefused() {
    assertRefused(Path.of("/"), "filesystem root");
  }

  @Test
  void aCacheRootThatIsAnNpxDirectoryIsRefused() throws Exception {
    write(npx.resolve("_npx/" + KEY + "/package.json"), "");
    assertRefused(npx, "_npx");
  }

  @Test
  void aNonNormalizedCacheRootIsRefused() throws Exception {
    assertThatThrownBy(() -> NpmCacheRoot.validate(root + "/../npm-cache"))
        .isInstanceOf(CacheRepairException.class).hasMessageContaining("not normalized");
    assertThatThrownBy(() -> NpmCacheRoot.validate(root + "/./"))
        .isInstanceOf(CacheRepairException.class).hasMessageContaining("not normalized");
  }

  @Test
  void aSymlinkedKeyDirectoryIsRefusedAndItsTargetKept() throws Exception {
    Path elsewhere = write(dir.resolve("elsewhere/node_modules/opencode-ai/package.json"), "{}").getParent();
    Files.createSymbolicLink(npx.resolve(KEY), dir.resolve("elsewhere"));

    assertRefused(root, "symlink");
    assertThat(npx.resolve(KEY)).isSymbolicLink();
    assertThat(elsewhere.resolve("package.json")).hasContent("{}");
  }

  @Test
  void aKeyDirectoryLinkingOutOfTheCacheIsRefusedAndNothingDeleted() throws Exception {
    Path outside = Files.createDirectories(dir.resolve("outside"));
    write(outside.resolve("precious.txt"), "keep");
    Files.createSymbolicLink(npx.resolve(KEY), Path.of("../../outside"));

    assertRefused(root, "symlink");
    assertThat(outside.resolve("precious.txt")).hasContent("keep");
  }

  @Test
  void aSymlinkedNpxDirectoryIsRefused() throws Exception {
    Path realNpx = Files.createDirectories(dir.resolve("real-npx"));
    write(realNpx.resolve(KEY + "/package.json"), "{}");
    Path linkedRoot = Files.createDirectories(dir.resolve("linked-cache"));
    Files.createSymbolicLink(linkedRoot.resolve("_npx"), realNpx);

    assertRefused(linkedRoot, "symlink");
    assertThat(realNpx.resolve(KEY + "/package.json")).hasContent("{}");
  }

  @Test
  void aSymlinkedCacheRootIsRefused() throws Exception {
    write(npx.resolve(KEY + "/package.json"), "{}");
    Path link = Files.createSymbolicLink(dir.resolve("cache-link"), root);

    assertRefused(link, "symlink");
    assertThat(npx.resolve(KEY + "/package.json")).hasContent("{}");
  }

  @Test
  void aKeyThatIsARegularFileIsRefused() throws Exception {
    write(npx.resolve(KEY), "not a tree");

    assertRefused(root, "not a directory");
    assertThat(npx.resolve(KEY)).hasContent("not a tree");
  }

  private void assertRefused(Path cacheRoot, String reason) {
    List<String> before = tree(dir);
    assertThatThrownBy(() -> NpxExecutionTree.invalidate(cacheRoot, SPEC))
        .isInstanceOf(CacheRepairException.class)
        .hasMessageContaining(reason)
        .matches(e -> ((CacheRepairException) e).refused(), "reported as refused");
    assertThat(tree(dir)).as("nothing deleted").isEqualTo(before);
  }

  private static Path write(Path file, String content) throws IOException {
    Files.createDirectories(file.getParent());
    return Files.writeString(file, content);
  }

  private static List<String> tree(Path top) {
    try (Stream<Path> paths = Files.walk(top)) {
      return paths.map(p -> top.relativize(p).toString()).sorted().toList();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
