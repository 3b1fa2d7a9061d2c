package dev.kandev.recovery.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kandev.recovery.activities.process.ProcessTrees;
import dev.kandev.recovery.activities.testing.Await;
import dev.kandev.recovery.worker.harness.OtlpReceiver;
import dev.kandev.recovery.worker.harness.OtlpReceiver.ReceivedSpan;
import dev.kandev.recovery.worker.harness.RecoveryCluster;
import dev.kandev.recovery.workflows.model.SessionState;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One resume, started by the Go starter ({@code starters/go/cmd/kandev-resume}) against {@code
 * dev}, both exporting to an OTLP receiver: the starter's spans and the worker's are one trace,
 * the one whose id the starter printed, shaped StartResume → StartWorkflow → RunWorkflow →
 * StartActivity → RunActivity (local activities too) → agent.launch → acp.handshake → its steps,
 * and the agent's credential redemption under its launch.
 */
public class TracingIT {
  private static final Path MODULE = Path.of("..", "starters", "go").toAbsolutePath().normalize();
  private static final long GO_RUN_MINUTES = 5;
  private static final String SESSION = "s-trace";
  private static final String WORKER_SERVICE = "kandev-recovery-it";
  private static final Pattern TRACE_ID = Pattern.compile("(?m)^trace-id: ([0-9a-f]{32})$");
  private static final Pattern SECRET_NAME = Pattern.compile("(?i)token|secret|password|lease|authorization|key");

  @RegisterExtension final RecoveryCluster cluster = new RecoveryCluster();
  private OtlpReceiver receiver;

  @AfterEach
  void stopReceiver() {
    if (receiver != null) {
      receiver.close();
    }
  }

  @Test
  void aResumeStartedByTheGoStarterIsOneTraceAcrossTheStarterAndTheWorker() throws Exception {
    receiver = OtlpReceiver.start();
    Map<String, String> otel = Map.of(
        "OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
        "OTEL_BSP_SCHEDULE_DELAY", "100");
    cluster.dev("dev-trace", Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint(),
        "OTEL_BSP_SCHEDULE_DELAY", "100", "OTEL_SERVICE_NAME", WORKER_SERVICE));
    cluster.newSession(SESSION, SessionState.CREATED);
    cluster.gitHubBacked(SESSION, "github_app");
    cluster.agentMode("git-credential-on-new:github.com/acme/widgets"); // the agent redeems its lease at once

    String output = goRun(otel, "-address", cluster.temporalAddress(), "-session", SESSION, "-fresh");
    Matcher printed = TRACE_ID.matcher(output);
    assertThat(printed.find()).as("the starter printed its trace id:%n%s", output).isTrue();
    String traceId = printed.group(1);

    List<ReceivedSpan> trace = Await.until(() -> receiver.spansOf(traceId),
        spans -> named(spans, "RunWorkflow:ResumeSessionWorkflow").isPresent()
            && named(spans, "acp.session/new").isPresent() && named(spans, "credential.redeem").isPresent(),
        Duration.ofSeconds(30), "the worker's spans of trace " + traceId);

    ReceivedSpan starter = only(trace, "StartResume");
    assertThat(starter.service()).isEqualTo("kandev-starter");
    assertThat(starter.parentSpanId()).as("the starter's span is the trace's root").isEmpty();
    ReceivedSpan start = only(trace, "StartWorkflow:ResumeSessionWorkflow");
    assertThat(start.parentSpanId()).isEqualTo(starter.spanId());
    ReceivedSpan run = only(trace, "RunWorkflow:ResumeSessionWorkflow");
    assertThat(run.service()).isEqualTo(WORKER_SERVICE);
    assertThat(run.parentSpanId()).as("the worker's run continues the starter's trace").isEqualTo(start.spanId());
    assertThat(run.attributes()).containsEntry("temporalWorkflowID", "resume-session-" + SESSION);

    List<ReceivedSpan> attempts = trace.stream().filter(s -> s.name().startsWith("RunActivity:")).toList();
    assertThat(attempts).extracting(ReceivedSpan::name)
        .contains("RunActivity:LaunchAgent", "RunActivity:IssueCredentialLeaseForAttempt");
    assertThat(attempts).as("local activities are traced too")
        .anyMatch(s -> "true".equals(s.attributes().get("temporalLocalActivity")));
    for (ReceivedSpan attempt : attempts) {
      ReceivedSpan scheduled = parentOf(trace, attempt);
      assertThat(scheduled.name()).isEqualTo("StartActivity:" + attempt.name().substring("RunActivity:".length()));
      assertThat(scheduled.parentSpanId()).isEqualTo(run.spanId());
    }

    ReceivedSpan launch = only(trace, "agent.launch");
    assertThat(parentOf(trace, launch).name()).isEqualTo("RunActivity:LaunchAgent");
    assertThat(launch.attributes()).containsEntry("kandev.session.id", SESSION).containsKey("process.pid");
    ReceivedSpan handshake = only(trace, "acp.handshake");
    assertThat(handshake.parentSpanId()).isEqualTo(launch.spanId());
    assertThat(List.of(only(trace, "acp.initialize"), only(trace, "acp.session/new")))
        .allSatisfy(step -> assertThat(step.parentSpanId()).isEqualTo(handshake.spanId()));

    ReceivedSpan redemption = only(trace, "credential.redeem");
    assertThat(redemption.parentSpanId()).as("the agent's git redeemed its lease in the launch's trace")
        .isEqualTo(launch.spanId());
    assertThat(redemption.attributes()).containsEntry("http.response.status_code", "200")
        .containsEntry("kandev.credential.host", "github.com");

    // Every span the worker sent for this resume is in the starter's trace.
    assertThat(receiver.spans()).filteredOn(s -> ("resume-session-" + SESSION).equals(s.attributes().get("temporalWorkflowID")))
        .isNotEmpty().allSatisfy(s -> assertThat(s.traceId()).isEqualTo(traceId));
    // No secret in an attribute: no name that suggests one, no value of the worker's secret settings.
    assertThat(receiver.spans()).allSatisfy(s -> assertThat(s.attributes().keySet()).noneMatch(k -> SECRET_NAME.matcher(k).find()));
    List<String> secrets = new java.util.ArrayList<>(List.of(cluster.gitHubApp.privateKeyLine));
    cluster.gitHubApp.server.issued().forEach(issued -> secrets.add(issued.token()));
    assertThat(secrets).as("the redemption got an installation token").hasSizeGreaterThan(1);
    assertThat(receiver.spans()).flatExtracting(s -> List.copyOf(s.attributes().values()))
        .allSatisfy(value -> assertThat(secrets).noneMatch(value::contains));
  }

  private String goRun(Map<String, String> env, String... args) throws Exception {
    Path output = cluster.logDir().resolve("kandev-resume.log");
    List<String> command = new java.util.ArrayList<>(List.of("go", "run", "./cmd/kandev-resume"));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command)
        .directory(MODULE.toFile())
        .redirectErrorStream(true)
        .redirectOutput(output.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().putAll(env);
    Process go = builder.start();
    boolean ended = go.waitFor(GO_RUN_MINUTES, TimeUnit.MINUTES);
    if (!ended) {
      ProcessTrees.kill(go);
    }
    String log = Files.exists(output) ? Files.readString(output, StandardCharsets.UTF_8) : "";
    assertThat(ended).as("kandev-resume ended within %d minutes:%n%s", GO_RUN_MINUTES, log).isTrue();
    assertThat(go.exitValue()).as("kandev-resume:%n%s", log).isZero();
    return log;
  }

  private static Optional<ReceivedSpan> named(List<ReceivedSpan> spans, String name) {
    return spans.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  private static ReceivedSpan only(List<ReceivedSpan> spans, String name) {
    List<ReceivedSpan> found = spans.stream().filter(s -> s.name().equals(name)).toList();
    assertThat(found).as("spans named %s in %s", name, names(spans)).hasSize(1);
    return found.get(0);
  }

  private static ReceivedSpan parentOf(List<ReceivedSpan> spans, ReceivedSpan child) {
    return spans.stream().filter(s -> s.spanId().equals(child.parentSpanId())).findFirst()
        .orElseThrow(() -> new AssertionError("no parent of " + child.name() + " in " + names(spans)));
  }

  private static List<String> names(List<ReceivedSpan> spans) {
    return spans.stream().map(s -> s.service() + "/" + s.name()).toList();
  }
}
