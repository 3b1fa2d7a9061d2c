package dev.kandev.recovery.activities.agent;

import dev.kandev.recovery.activities.redaction.Redaction;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The child's environment, built from nothing: a few non-secret variables a process needs to run
 * at all are passed through from the worker, then the profile's entries, then the credential
 * step's entries (which win). Nothing else of the worker's environment reaches an agent.
 */
final class AgentEnvironment {
  static final List<String> PASSED_THROUGH = List.of("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR");

  private AgentEnvironment() {}

  static Map<String, String> build(Map<String, String> worker, Map<String, String> profile, Map<String, String> credentials) {
    Map<String, String> env = new LinkedHashMap<>();
    for (String name : PASSED_THROUGH) {
      String value = worker.get(name);
      if (value != null) {
        env.put(name, value);
      }
    }
    env.putAll(profile);
    env.putAll(credentials);
    return env;
  }

  /**
   * Values that must not appear in diagnostics: every credential value, and profile values whose
   * name says secret; longest first so a value containing another is masked whole.
   */
  static List<String> secretValues(Map<String, String> profile, Map<String, String> credentials) {
    List<String> values = new ArrayList<>();
    profile.entrySet().stream()
        .filter(e -> Redaction.namesASecret(e.getKey()) && e.getValue().length() >= 6)
        .forEach(e -> values.add(e.getValue()));
    credentials.values().stream().filter(v -> v.length() >= 6).forEach(values::add);
    values.sort(Comparator.comparingInt(String::length).reversed());
    return List.copyOf(values);
  }
}
