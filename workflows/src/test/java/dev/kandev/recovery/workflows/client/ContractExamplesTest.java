package dev.kandev.recovery.workflows.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import dev.kandev.recovery.workflows.resume.LaunchOutcome;
import dev.kandev.recovery.workflows.resume.ResumeFailure;
import dev.kandev.recovery.workflows.resume.ResumeProgress;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import dev.kandev.recovery.workflows.resume.ResumeResult;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateProgress;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateRequest;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateResult;
import io.temporal.api.common.v1.Payload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JSON examples of the docs are the payloads, field for field: each {@code ```json} block,
 * named by the {@code <!-- payload: Name -->} comment before it, is read with the contract's
 * converter into its record and written back unchanged. A field the code does not have, a missing
 * one, or {@code null} where the code writes {@code ""} fails here.
 */
class ContractExamplesTest {
  private static final List<String> DOCS = List.of("docs/contract.md", "docs/runtime-updates.md");
  private static final Map<String, Class<?>> PAYLOADS = Map.of(
      "ResumeRequest", ResumeRequest.class,
      "ResumeResult", ResumeResult.class,
      "ResumeFailure", ResumeFailure.class,
      "ResumeProgress", ResumeProgress.class,
      "RuntimeUpdateRequest", RuntimeUpdateRequest.class,
      "RuntimeUpdateResult", RuntimeUpdateResult.class,
      "RuntimeUpdateProgress", RuntimeUpdateProgress.class,
      "LaunchOutcome", LaunchOutcome.class);
  private static final Pattern MARKER = Pattern.compile("<!-- payload: (\\w+) -->");
  private static final ObjectMapper TREES = new ObjectMapper();

  record Example(String where, String payload, String json) {
    @Override
    public String toString() {
      return where + " " + payload;
    }
  }

  static Stream<Example> examples() throws IOException {
    List<Example> all = new ArrayList<>();
    for (String doc : DOCS) {
      List<String> lines = Files.readAllLines(repository().resolve(doc), StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        if (!lines.get(i).strip().equals("```json")) {
          continue;
        }
        String where = doc + ":" + (i + 1);
        Matcher marker = MARKER.matcher(i > 0 ? lines.get(i - 1).strip() : "");
        assertThat(marker.matches()).as("%s: a ```json block needs <!-- payload: Name --> on the line before", where).isTrue();
        StringBuilder json = new StringBuilder();
        for (i++; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
          json.append(lines.get(i)).append('\n');
        }
        all.add(new Example(where, marker.group(1), json.toString()));
      }
    }
    return all.stream();
  }

  @ParameterizedTest
  @MethodSource("examples")
  void eachExampleIsItsPayloadRecordFieldForField(Example example) throws Exception {
    Class<?> type = PAYLOADS.get(example.payload());
    assertThat(type).as("%s names a payload record", example.where()).isNotNull();

    Object read = RecoveryDataConverter.INSTANCE.fromPayload(json(example.json()), type, type);
    Payload written = RecoveryDataConverter.INSTANCE.toPayload(read).orElseThrow();

    assertThat(TREES.readTree(written.getData().toStringUtf8()))
        .as("%s written back", example.where())
        .isEqualTo(TREES.readTree(example.json()));
  }

  @Test
  void theContractShowsEveryPayload() throws Exception {
    assertThat(examples().filter(e -> e.where().startsWith("docs/contract.md")).map(Example::payload))
        .containsAll(PAYLOADS.keySet());
  }

  private static Payload json(String text) {
    return Payload.newBuilder()
        .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
        .setData(ByteString.copyFrom(text, StandardCharsets.UTF_8))
        .build();
  }

  private static Path repository() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isRegularFile(dir.resolve("docs/contract.md"))) {
        return dir;
      }
    }
    throw new IllegalStateException("docs/contract.md not found above " + Path.of("").toAbsolutePath());
  }
}
