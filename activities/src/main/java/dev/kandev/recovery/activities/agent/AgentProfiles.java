package dev.kandev.recovery.activities.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The configured agent profiles by agent id. JSON form (see docs/agents.md):
 *
 * <pre>{"opencode": {"argv": ["npx", "--yes", "opencode-ai", "acp"], "env": {"K": "V"}, "cwd": null}}</pre>
 */
public final class AgentProfiles {
  private final Map<String, AgentProfile> byId;

  public AgentProfiles(Collection<AgentProfile> profiles) {
    Map<String, AgentProfile> map = new LinkedHashMap<>();
    for (AgentProfile profile : profiles) {
      if (map.put(profile.agentId(), profile) != null) {
        throw new IllegalArgumentException("agent profile '" + profile.agentId() + "' is defined twice");
      }
    }
    this.byId = Map.copyOf(map);
  }

  public static AgentProfiles of(AgentProfile... profiles) {
    return new AgentProfiles(List.of(profiles));
  }

  public static AgentProfiles fromJson(String json) {
    try {
      return fromJson(Json.mapper().readTree(json));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("agent profiles are not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  public static AgentProfiles fromJson(JsonNode root) {
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("agent profiles must be a JSON object keyed by agent id");
    }
    List<AgentProfile> profiles = new ArrayList<>();
    for (Map.Entry<String, JsonNode> entry : root.properties()) {
      String id = entry.getKey();
      JsonNode node = entry.getValue();
      JsonNode argvNode = node.path("argv");
      if (!argvNode.isArray()) {
        throw new IllegalArgumentException("agent profile '" + id + "': argv must be an array of strings");
      }
      List<String> argv = new ArrayList<>();
      argvNode.forEach(a -> argv.add(requireText(id, "argv", a)));
      Map<String, String> env = new LinkedHashMap<>();
      JsonNode envNode = node.path("env");
      if (!envNode.isMissingNode() && !envNode.isNull()) {
        if (!envNode.isObject()) {
          throw new IllegalArgumentException("agent profile '" + id + "': env must be an object of strings");
        }
        envNode.properties().forEach(e -> env.put(e.getKey(), requireText(id, "env." + e.getKey(), e.getValue())));
      }
      JsonNode cwd = node.path("cwd");
      Path workingDirectory = cwd.isTextual() && !cwd.asText().isBlank() ? Path.of(cwd.asText()) : null;
      profiles.add(new AgentProfile(id, argv, env, workingDirectory));
    }
    return new AgentProfiles(profiles);
  }

  private static String requireText(String id, String field, JsonNode value) {
    if (!value.isTextual()) {
      throw new IllegalArgumentException("agent profile '" + id + "': " + field + " must be a string");
    }
    return value.asText();
  }

  /** The profile of {@code agentId}, or an {@link IllegalArgumentException} listing the known ids. */
  public AgentProfile get(String agentId) {
    AgentProfile profile = byId.get(agentId);
    if (profile == null) {
      throw new IllegalArgumentException(
          "unknown agent profile '" + agentId + "'; known agent ids: " + ids());
    }
    return profile;
  }

  public Set<String> ids() {
    return new TreeSet<>(byId.keySet());
  }
}
