package dev.kandev.recovery.worker.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md, CHANGELOG.md and docs/ (images too) names a file or folder of
 * the repository, and its {@code #anchor}, when it points into a Markdown file, one of that file's
 * headings as GitHub names them (or an explicit {@code <a id>}).
 */
class DocLinksTest {
  private static final Path REPOSITORY = Path.of("..").toAbsolutePath().normalize();
  /** An inline link or image: its target is group 1 (a title after it is allowed). */
  private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");
  private static final Pattern EXPLICIT_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
  private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

  private final Map<Path, Set<String>> anchors = new HashMap<>();

  @Test
  void everyRelativeLinkAndAnchorOfTheDocsResolves() throws IOException {
    List<Path> files = documents();
    assertThat(files).as("README, CHANGELOG and docs/").contains(REPOSITORY.resolve("README.md"))
        .anyMatch(f -> f.startsWith(REPOSITORY.resolve("docs")));
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path file : files) {
      for (String target : links(file)) {
        checked++;
        problem(file, target).ifPresent(p -> broken.add(REPOSITORY.relativize(file) + ": (" + target + ") " + p));
      }
    }
    assertThat(checked).as("links checked").isGreaterThan(50);
    assertThat(broken).as("links that do not resolve").isEmpty();
  }

  @Test
  void anchorsAreNamedAsGitHubNamesHeadings() {
    assertThat(slug("`ResumeSessionWorkflow`")).isEqualTo("resumesessionworkflow");
    assertThat(slug("Kandev's event bus")).isEqualTo("kandevs-event-bus");
    assertThat(slug("`bin/kandev-recovery`")).isEqualTo("binkandev-recovery");
    assertThat(slug("Agent → client requests")).isEqualTo("agent--client-requests");
    assertThat(slug("Payloads (JSON; rules: [contract](contract.md#payload-rules))")).isEqualTo("payloads-json-rules-contract");
    assertThat(slug("KANDEV_HOST and `--version`")).isEqualTo("kandev_host-and---version");
  }

  private static List<Path> documents() throws IOException {
    List<Path> files = new ArrayList<>(List.of(REPOSITORY.resolve("README.md"), REPOSITORY.resolve("CHANGELOG.md")));
    try (Stream<Path> docs = Files.walk(REPOSITORY.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    return files;
  }

  /** The link targets of {@code file}, outside code blocks and code spans. */
  private static List<String> links(Path file) throws IOException {
    // Joined: a link's text may wrap onto the next line, and so may a code span.
    Matcher link = LINK.matcher(String.join("\n", prose(file)).replaceAll("`[^`]*`", "``"));
    List<String> targets = new ArrayList<>();
    while (link.find()) {
      targets.add(link.group(1));
    }
    return targets;
  }

  private Optional<String> problem(Path from, String target) throws IOException {
    if (SCHEME.matcher(target).find()) {
      return Optional.empty(); // http, https, mailto: not ours to check here
    }
    int hash = target.indexOf('#');
    String path = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    Path resolved = path.isEmpty() ? from : from.getParent().resolve(path).normalize();
    if (!resolved.startsWith(REPOSITORY)) {
      return Optional.of("leaves the repository");
    }
    if (!Files.exists(resolved)) {
      return Optional.of("no such file or folder");
    }
    if (anchor != null && resolved.toString().endsWith(".md") && !anchorsOf(resolved).contains(anchor)) {
      return Optional.of("no heading #" + anchor + " in " + REPOSITORY.relativize(resolved));
    }
    return Optional.empty();
  }

  private Set<String> anchorsOf(Path file) throws IOException {
    Set<String> known = anchors.get(file);
    if (known == null) {
      known = new HashSet<>();
      Map<String, Integer> seen = new HashMap<>();
      for (String line : prose(file)) {
        Matcher heading = HEADING.matcher(line);
        if (heading.matches()) {
          String slug = slug(heading.group(1));
          int n = seen.merge(slug, 1, Integer::sum) - 1;
          known.add(n == 0 ? slug : slug + "-" + n);
        }
        Matcher explicit = EXPLICIT_ANCHOR.matcher(line);
        while (explicit.find()) {
          known.add(explicit.group(1));
        }
      }
      anchors.put(file, known);
    }
    return known;
  }

  /**
   * GitHub's anchor of a heading: its text as rendered (links by their text, code without its
   * backticks), lower case, without anything but letters, digits, spaces, '-' and '_', each space a '-'.
   */
  static String slug(String heading) {
    String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").toLowerCase(Locale.ROOT);
    return text.replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "").replace(' ', '-');
  }

  /** The lines of {@code file} outside fenced code blocks. */
  private static List<String> prose(Path file) throws IOException {
    List<String> lines = new ArrayList<>();
    boolean inFence = false;
    for (String line : Files.readAllLines(file)) {
      if (FENCE.matcher(line).find()) {
        inFence = !inFence;
      } else if (!inFence) {
        lines.add(line);
      }
    }
    return lines;
  }
}
