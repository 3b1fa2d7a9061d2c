package dev.kandev.recovery.workflows.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Exports a workflow's history as JSON and asserts that no secret appears in it. Payloads (inputs,
 * results, memo, search attributes, failure details) are base64 in the export, so every base64
 * string is decoded too (recursively, for payloads inside decoded JSON) before searching. Pass
 * single-line secrets: a token, a JWT, or one distinctive line of a PEM key.
 */
public final class HistorySecrets {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/_-]{8,}={0,2}");
  private static final int MAX_DEPTH = 4;

  private HistorySecrets() {}

  /** The workflow's full history as Temporal's JSON export ({@code WorkflowExecutionHistory.toJson}). */
  public static String exportJson(WorkflowClient client, String workflowId) {
    return client.fetchHistory(workflowId).toJson(true);
  }

  /** Asserts that none of {@code secrets} appears in the history of {@code workflowId}. */
  public static void assertNoSecrets(WorkflowClient client, String workflowId, Collection<String> secrets) {
    assertNoSecrets(exportJson(client, workflowId), secrets);
  }

  public static void assertNoSecrets(WorkflowClient client, String workflowId, String... secrets) {
    assertNoSecrets(client, workflowId, List.of(secrets));
  }

  /** Asserts that none of {@code secrets} appears in {@code historyJson}, raw or in a decoded payload. */
  public static void assertNoSecrets(String historyJson, Collection<String> secrets) {
    assertThat(secrets).as("secrets to look for").isNotEmpty().allSatisfy(s -> assertThat(s).hasSizeGreaterThan(3));
    String searchable = searchableText(historyJson);
    for (String secret : secrets) {
      assertThat(searchable).as("workflow history must not contain a secret").doesNotContain(secret);
    }
  }

  /** The history text plus the decoded text of every base64 string in it. */
  static String searchableText(String json) {
    StringBuilder out = new StringBuilder(json);
    collect(json, out, 0);
    return out.toString();
  }

  private static void collect(String text, StringBuilder out, int depth) {
    if (depth > MAX_DEPTH) {
      return;
    }
    List<String> strings = new ArrayList<>();
    try {
      strings(JSON.readTree(text), strings);
    } catch (IOException e) {
      strings.add(text);
    }
    for (String s : strings) {
      if (!BASE64.matcher(s).matches()) {
        continue;
      }
      String decoded = decode(s);
      if (decoded != null) {
        out.append('\n').append(decoded);
        collect(decoded, out, depth + 1);
      }
    }
  }

  private static void strings(JsonNode node, List<String> out) {
    if (node == null) {
      return;
    }
    if (node.isTextual()) {
      out.add(node.asText());
    } else if (node.isContainerNode()) {
      node.forEach(child -> strings(child, out));
      if (node.isObject()) {
        node.fields().forEachRemaining((Map.Entry<String, JsonNode> e) -> out.add(e.getKey()));
      }
    }
  }

  private static String decode(String s) {
    byte[] bytes;
    try {
      bytes = s.contains("-") || s.contains("_") ? Base64.getUrlDecoder().decode(s) : Base64.getDecoder().decode(s);
    } catch (IllegalArgumentException e) {
      return null;
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }
}
