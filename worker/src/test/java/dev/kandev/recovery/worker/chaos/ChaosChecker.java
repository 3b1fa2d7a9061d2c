package dev.kandev.recovery.worker.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.store.ExecutorRecord;
import dev.kandev.recovery.activities.store.SessionIdentity;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.TestStores;
import dev.kandev.recovery.activities.store.StoreException;
import dev.kandev.recovery.worker.chaos.ChaosHistory.FaultEvent;
import dev.kandev.recovery.worker.chaos.ChaosHistory.OpRecord;
import dev.kandev.recovery.worker.chaos.ChaosHistory.Outcome;
import dev.kandev.recovery.worker.harness.HistorySteps;
import dev.kandev.recovery.workflows.FailureType;
import dev.kandev.recovery.workflows.RecoverySearchAttributes;
import dev.kandev.recovery.workflows.model.SessionState;
import dev.kandev.recovery.workflows.resume.ResumeMode;
import dev.kandev.recovery.workflows.resume.ResumeOutcome;
import dev.kandev.recovery.workflows.resume.ResumeRequest;
import io.nats.client.Message;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The invariants of docs/reliability.md, written once: judged over a campaign's whole history (the
 * runs as Temporal keeps them, the rows, the outbox and what NATS delivered, the agents {@code /proc}
 * showed, the logs) once the system has settled. Each violation names its invariant and session;
 * the verdict carries each violating session's story.
 */
public final class ChaosChecker {
  /** Invariant names, as docs/reliability.md lists them. */
  public enum Invariant {
    RUN_ENDED, PROMISED_OUTCOME, OUTCOME_LISTED, NO_STARTING, LOCK_FREE, LIVE_AGENT_WHEN_WAITING, ONE_AGENT,
    TOKEN_CHANGES, SNAPSHOT_RESTORED, LEASES_REVOKED, TRANSCRIPT_ONCE, KANDEV_KEYS_KEPT, OUTBOX_IN_ORDER, NO_SECRET
  }

  /** One broken invariant. */
  public record Violation(Invariant invariant, String session, String detail) {
    @Override
    public String toString() {
      return invariant + " " + session + ": " + detail;
    }
  }

  /** The checker's result: the violations, a summary table and the stories of the violating sessions. */
  public record Verdict(List<Violation> violations, String summary, String stories) {
    /** No invariant broken. */
    public boolean passed() {
      return violations.isEmpty();
    }
  }

  /** A run of a session's workflow id as Temporal keeps it. */
  record Run(String session, String runId, String mode, String reason, String status, Instant started, Instant closed,
      String listedOutcome, Outcome outcome) {}

  /** What is wrong with a CANCELED run's outcome: its invariant and what it says. */
  record Problem(Invariant invariant, String detail) {}

  private final ChaosCampaign campaign;
  private final List<Violation> violations = new ArrayList<>();
  private final Map<String, List<Run>> runs = new TreeMap<>();

  ChaosChecker(ChaosCampaign campaign) {
    this.campaign = campaign;
  }

  /**
   * Whether the system is at rest: nothing running, nothing STARTING, no lock, every waiting session's
   * agent live, and no agent row claiming a process that is gone.
   */
  static boolean atRest(ChaosCampaign campaign) {
    long running = campaign.cluster.client().listExecutions(
        "WorkflowType = 'ResumeSessionWorkflow' AND ExecutionStatus = 'Running'").count();
    if (running > 0 || campaign.cluster.fixtures.count("SELECT count(*) FROM resume_locks") > 0) {
      return false;
    }
    Map<String, Set<Long>> agents = campaign.agentsBySession();
    for (String session : campaign.sessions) {
      SessionState state = campaign.cluster.state(session);
      if (state == SessionState.STARTING) {
        return false;
      }
      if (state == SessionState.WAITING_FOR_INPUT && agents.get(session).isEmpty() && !exitedOnItsOwn(campaign, session)
          && !inErrorRecovery(campaign, session)) {
        return false;
      }
      // An agent row still claiming a process that is gone: its worker died with it, and the live
      // workers record it lost (and revoke its leases) once that worker counts as gone.
      if (agents.get(session).isEmpty() && campaign.cluster.executor(session).filter(TestStores::claimsLiveProcess).isPresent()) {
        return false;
      }
    }
    return true;
  }

  /**
   * WAITING_FOR_INPUT with an error: the error-recovery state, in which a session waits for its user
   * (a failed resume restored an active state; restart recovery leaves it alone).
   */
  private static boolean inErrorRecovery(ChaosCampaign campaign, String session) {
    return !campaign.cluster.fixtures.string("SELECT COALESCE(error_message, '') FROM task_sessions WHERE id = ?", session)
        .isEmpty();
  }

  private static boolean exitedOnItsOwn(ChaosCampaign campaign, String session) {
    return campaign.cluster.executor(session)
        .map(e -> !TestStores.claimsLiveProcess(e) && e.errorMessage() != null && e.errorMessage().contains("exited on its own"))
        .orElse(false);
  }

  Verdict check() throws Exception {
    collectRuns();
    Map<String, Set<Long>> agents = campaign.agentsBySession();
    for (String session : campaign.sessions) {
      checkRuns(session);
      checkRows(session, agents.get(session));
      checkTokens(session);
      checkSnapshots(session);
      checkTranscript(session);
      checkKandevKeys(session);
    }
    checkOverlaps();
    if (campaign.schedule.layout() == StoreLayout.Kind.KANDEV) {
      checkOutbox();
    }
    checkSecrets();
    return new Verdict(List.copyOf(violations), summary(), stories());
  }

  private void violation(Invariant invariant, String session, String detail) {
    violations.add(new Violation(invariant, session, detail));
  }

  private void collectRuns() {
    for (WorkflowExecutionMetadata run : campaign.cluster.client()
        .listExecutions("WorkflowType = 'ResumeSessionWorkflow'").toList()) {
      String workflowId = run.getExecution().getWorkflowId();
      String session = workflowId.substring("resume-session-".length());
      String status = run.getStatus().name().replace("WORKFLOW_EXECUTION_STATUS_", "");
      Outcome outcome = Outcome.running();
      if (run.getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        WorkflowStub stub = campaign.cluster.client().newUntypedWorkflowStub(workflowId,
            Optional.of(run.getExecution().getRunId()), Optional.empty());
        try {
          outcome = ChaosCampaign.outcomeOf(stub, Duration.ofSeconds(10));
        } catch (java.util.concurrent.TimeoutException e) {
          outcome = Outcome.running();
        }
      }
      runs.computeIfAbsent(session, k -> new ArrayList<>()).add(new Run(session, run.getExecution().getRunId(),
          String.valueOf(run.getMemo("mode", String.class)), String.valueOf(run.getMemo("reason", String.class)),
          status, run.getStartTime(), run.getCloseTime(), run.getTypedSearchAttributes().get(RecoverySearchAttributes.OUTCOME),
          outcome));
    }
    runs.values().forEach(list -> list.sort(Comparator.comparing(Run::started)));
  }

  /** The type of a store fault Temporal reports with the exception's class name (outside the catalogue). */
  private static final String STORE_EXCEPTION = StoreException.class.getName();

  private List<Run> runsOf(String session) {
    return runs.getOrDefault(session, List.of());
  }

  /**
   * A run that failed with the store's own exception while PostgreSQL restarted: the contract's
   * uncatalogued fault ("a database outage", docs/contract.md's failure types), promised only when a
   * restart of the campaign's PostgreSQL began within the operation that started the run (or a second
   * before it), and with its failure story (so the session was restored like any failed resume's).
   */
  private boolean storeOutageDuring(String session, Run run, Outcome outcome) {
    List<OpRecord> ops = opsOf(session).stream()
        .filter(op -> run.runId().equals(op.runId()) || run.runId().equals(op.secondRunId())).toList();
    synchronized (campaign.history.faults) {
      return outcome.failure() != null && storeOutage(outcome.failureType(), ops, List.copyOf(campaign.history.faults));
    }
  }

  static boolean storeOutage(String failureType, List<OpRecord> ops, List<FaultEvent> faults) {
    return STORE_EXCEPTION.equals(failureType) && ops.stream().anyMatch(op -> faults.stream().anyMatch(fault ->
        fault.what().startsWith("PostgreSQL restart") && fault.atMs() >= op.startedMs() - 1_000
            && fault.atMs() <= op.endedMs()));
  }

  /** Every run ended, with an outcome the contract promises, listed under that outcome. */
  private void checkRuns(String session) {
    for (Run run : runsOf(session)) {
      Outcome outcome = run.outcome();
      String id = "run " + run.runId() + " (" + run.mode() + ", " + run.reason() + ")";
      switch (run.status()) {
        case "RUNNING" -> violation(Invariant.RUN_ENDED, session, id + " still running after the settle");
        case "COMPLETED" -> {
          if (outcome.result() == null || outcome.result().finalState() != SessionState.WAITING_FOR_INPUT) {
            violation(Invariant.PROMISED_OUTCOME, session, id + " completed with " + outcome);
          } else if (outcome.result().outcome() == ResumeOutcome.STARTED_FRESH && !"START_FRESH".equals(run.mode())) {
            violation(Invariant.PROMISED_OUTCOME, session, id + " a RESUME ended STARTED_FRESH (a new conversation):"
                + " docs/contract.md says RESUME is never silently a new one");
          }
        }
        case "FAILED" -> {
          boolean catalogued = outcome.failureType() != null && FailureType.of(outcome.failureType()).isPresent();
          if ((!catalogued || outcome.failure() == null) && !storeOutageDuring(session, run, outcome)) {
            violation(Invariant.PROMISED_OUTCOME, session, id + " failed outside the catalogue: " + outcome);
          }
          if (!"FAILED".equals(run.listedOutcome())) {
            violation(Invariant.OUTCOME_LISTED, session, id + " failed, listed as " + run.listedOutcome());
          }
        }
        case "CANCELED" -> cancelledRunProblem(run.listedOutcome(), settled(session, run))
            .ifPresent(problem -> violation(problem.invariant(), session, id + " " + problem.detail()));
        default -> violation(Invariant.PROMISED_OUTCOME, session, id + " ended " + run.status() + ": " + outcome);
      }
      if (run.status().equals("COMPLETED") && outcome.result() != null
          && !outcome.result().outcome().name().equals(run.listedOutcome())) {
        violation(Invariant.OUTCOME_LISTED, session, id + " " + outcome.result().outcome() + ", listed as "
            + run.listedOutcome());
      }
    }
  }

  /**
   * The two promised forms of a CANCELED run (docs/contract.md, "Stopping a resume"): it compensated,
   * listed CANCELLED; or the cancel arrived once its settle completed (Temporal's Java SDK ends a run
   * whose cancel is pending CANCELED, whatever it returned), listed with the outcome it reached,
   * RESUMED or STARTED_FRESH, the session resumed. Anything else breaks the contract.
   */
  static Optional<Problem> cancelledRunProblem(String listedOutcome, boolean settled) {
    boolean resumed = "RESUMED".equals(listedOutcome) || "STARTED_FRESH".equals(listedOutcome);
    if (resumed && !settled) {
      return Optional.of(new Problem(Invariant.PROMISED_OUTCOME, "ended CANCELED, listed " + listedOutcome
          + ", but its history holds no completed settle"));
    }
    if (!resumed && !"CANCELLED".equals(listedOutcome)) {
      return Optional.of(new Problem(Invariant.OUTCOME_LISTED, "ended CANCELED, listed " + listedOutcome
          + (settled ? " after its settle completed" : "")));
    }
    return Optional.empty();
  }

  /** Whether the run's settle completed, by its history (a history that cannot be read: not settled). */
  private boolean settled(String session, Run run) {
    try {
      return settleCompleted(campaign.cluster.client().fetchHistory(ResumeRequest.workflowId(session), run.runId()));
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** A history's settle completed: its local activity's marker without a failure, or its activity completed. */
  static boolean settleCompleted(WorkflowExecutionHistory history) {
    Set<Long> settles = new HashSet<>();
    for (HistoryEvent event : history.getEvents()) {
      if (event.hasActivityTaskScheduledEventAttributes()
          && SETTLE.equals(event.getActivityTaskScheduledEventAttributes().getActivityType().getName())) {
        settles.add(event.getEventId());
      } else if (event.hasActivityTaskCompletedEventAttributes()
          && settles.contains(event.getActivityTaskCompletedEventAttributes().getScheduledEventId())) {
        return true;
      } else if (event.hasMarkerRecordedEventAttributes() && !event.getMarkerRecordedEventAttributes().hasFailure()
          && HistorySteps.localActivityTypeOf(event).filter(SETTLE::equals).isPresent()) {
        return true;
      }
    }
    return false;
  }

  private static final String SETTLE = "SettleSession";

  /** At rest: not STARTING, the lock free, a waiting session's one agent live, no agent otherwise, leases with their agents. */
  private void checkRows(String session, Set<Long> agents) {
    SessionState state = campaign.cluster.state(session);
    if (state == SessionState.STARTING) {
      violation(Invariant.NO_STARTING, session, "rests STARTING");
    }
    List<String> locks = campaign.cluster.fixtures.strings(
        "SELECT owner || ' fence ' || fencing_token || ' expires ' || expires_at FROM resume_locks WHERE session_id = ?",
        session);
    for (String lock : locks) {
      violation(Invariant.LOCK_FREE, session, "lock held at rest: " + lock);
    }
    Optional<ExecutorRecord> executor = campaign.cluster.executor(session);
    boolean claims = executor.map(TestStores::claimsLiveProcess).orElse(false);
    if (agents.size() > 1) {
      violation(Invariant.ONE_AGENT, session, "live agent processes at rest: " + agents);
    }
    if (state == SessionState.WAITING_FOR_INPUT) {
      boolean ownExit = exitedOnItsOwn(campaign, session);
      if (agents.isEmpty() && !ownExit && !inErrorRecovery(campaign, session)) {
        violation(Invariant.LIVE_AGENT_WHEN_WAITING, session, "WAITING_FOR_INPUT with no live agent after the recovery"
            + " window; its agent row: " + executor.orElse(null));
      } else if (!agents.isEmpty() && (!claims || !agents.contains(executor.get().pid()))) {
        violation(Invariant.LIVE_AGENT_WHEN_WAITING, session, "WAITING_FOR_INPUT, agent processes " + agents
            + " but its agent row " + executor.orElse(null));
      }
    } else if (!agents.isEmpty() && state != SessionState.RUNNING && state != SessionState.IDLE) {
      violation(Invariant.ONE_AGENT, session, "agent processes " + agents + " left for a " + state + " session");
    }
    long live = campaign.cluster.fixtures.count("SELECT count(*) FROM credential_leases WHERE session_id = ?"
        + " AND revoked_at IS NULL AND expires_at > now()", session);
    if (live > 1 || (live > 0 && agents.isEmpty())) {
      violation(Invariant.LEASES_REVOKED, session, live + " live lease(s) with " + agents.size() + " live agent(s)");
    }
  }

  /**
   * The token changes only by a Start fresh (cleared, then replaced after session/new) or a
   * replacement after session/new: every token the sampler saw, and the stored one, is the first one,
   * one an agent's session/new created for this session (its workspace; also when the run failed
   * after the replacement), or none after a Start fresh; a session no Start fresh ever touched keeps
   * its first token; the executor row and {@code metadata.acp.session_id} agree.
   */
  private void checkTokens(String session) throws IOException {
    Set<String> allowed = new LinkedHashSet<>();
    allowed.add(campaign.history.initialTokens.get(session));
    allowed.addAll(createdBySessionNew(session));
    boolean anyFresh = runsOf(session).stream().anyMatch(r -> "START_FRESH".equals(r.mode()));
    Set<String> seen = new HashSet<>(campaign.history.tokensSeen.getOrDefault(session, Set.of()));
    SessionIdentity identity = campaign.cluster.identity(session);
    String token = Optional.ofNullable(identity.resumeToken()).orElse("");
    String acp = Optional.ofNullable(identity.acpSessionId()).orElse("");
    seen.add(token);
    seen.removeAll(allowed);
    if (anyFresh) {
      seen.remove("");
    }
    if (!seen.isEmpty()) {
      violation(Invariant.TOKEN_CHANGES, session, "tokens seen that no Start fresh or session/new made: " + seen
          + " (allowed " + allowed + ")");
    }
    if (!token.equals(acp)) {
      violation(Invariant.TOKEN_CHANGES, session, "executor token " + token + " and metadata.acp.session_id " + acp
          + " differ");
    }
    if (!anyFresh && !token.equals(campaign.history.initialTokens.get(session))) {
      violation(Invariant.TOKEN_CHANGES, session, "no Start fresh ran, yet the token is '" + token + "'");
    }
  }

  /** The provider sessions the test agent created by session/new in the session's workspace (its state files). */
  private Set<String> createdBySessionNew(String session) throws IOException {
    Set<String> created = new HashSet<>();
    String workspace = campaign.workspace(session).toString();
    try (Stream<Path> files = Files.list(campaign.agentState())) {
      for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
        try {
          JsonNode state = Json.mapper().readTree(file.toFile());
          if (workspace.equals(state.path("cwd").asText())) {
            created.add(state.path("id").asText());
          }
        } catch (IOException e) {
          // a file being written: the next check reads it
        }
      }
    }
    return created;
  }

  /**
   * A failed or cancelled run leaves the credential snapshot as it was before, byte for byte. Compared
   * for the runs an operation started: one that attached to a run restart recovery had started (its
   * {@code USE_EXISTING}) read its "before" after that run had already persisted its own snapshot.
   */
  private void checkSnapshots(String session) {
    for (OpRecord op : opsOf(session)) {
      String status = op.outcome().status();
      Optional<Run> run = runsOf(session).stream().filter(r -> r.runId().equals(op.runId())).findFirst();
      boolean settledThenCancelled = status.equals("CANCELED") && run
          .filter(r -> "RESUMED".equals(r.listedOutcome()) || "STARTED_FRESH".equals(r.listedOutcome())).isPresent();
      boolean startedByRecovery = run.filter(r -> ResumeRequest.RESTART_RECOVERY.equals(r.reason())).isPresent();
      boolean failed = (status.equals("FAILED") || status.equals("CANCELED")) && !settledThenCancelled;
      if (failed && !startedByRecovery && op.latestAfter()
          && !java.util.Objects.equals(op.snapshotBefore(), op.snapshotAfter())) {
        violation(Invariant.SNAPSHOT_RESTORED, session, "op " + op.op().index() + " run " + op.runId() + " " + status
            + ": snapshot before " + op.snapshotBefore() + ", after " + op.snapshotAfter());
      }
    }
  }

  private List<OpRecord> opsOf(String session) {
    synchronized (campaign.history.ops) {
      return campaign.history.ops.stream().filter(o -> campaign.sessions.get(o.op().session()).equals(session)).toList();
    }
  }

  /** No message of the transcript twice, however often session/load replayed it. */
  private void checkTranscript(String session) {
    String sql = campaign.schedule.layout() == StoreLayout.Kind.KANDEV
        ? "SELECT author_type || ': ' || content || ' x' || count(*) FROM task_session_messages WHERE task_session_id = ?"
            + " GROUP BY author_type, content HAVING count(*) > 1"
        : "SELECT role || ': ' || content || ' x' || count(*) FROM session_messages WHERE session_id = ?"
            + " GROUP BY role, content HAVING count(*) > 1";
    List<String> twice = campaign.cluster.fixtures.strings(sql, session);
    if (!twice.isEmpty()) {
      violation(Invariant.TRANSCRIPT_ONCE, session, "messages stored more than once: " + twice);
    }
  }

  /** Every metadata key Kandev wrote is still there. */
  private void checkKandevKeys(String session) {
    for (String key : campaign.history.kandevKeys.getOrDefault(session, Set.of())) {
      long kept = campaign.cluster.fixtures.count(
          "SELECT count(*) FROM task_sessions WHERE id = ? AND (metadata::jsonb -> ?) IS NOT NULL",
          session, key);
      if (kept == 0) {
        violation(Invariant.KANDEV_KEYS_KEPT, session, "Kandev's metadata key " + key + " is gone");
      }
    }
  }

  /** Two agents of one session at once, seen in two samples in a row (a second apart) with the same pids. */
  private void checkOverlaps() {
    List<ChaosHistory.Overlap> overlaps;
    synchronized (campaign.history.overlaps) {
      overlaps = List.copyOf(campaign.history.overlaps);
    }
    Set<String> reported = new HashSet<>();
    for (int i = 0; i < overlaps.size(); i++) {
      for (int j = i + 1; j < overlaps.size(); j++) {
        ChaosHistory.Overlap a = overlaps.get(i);
        ChaosHistory.Overlap b = overlaps.get(j);
        if (a.session().equals(b.session()) && a.pids().equals(b.pids()) && b.atMs() - a.atMs() >= 900
            && reported.add(a.session() + a.pids())) {
          violation(Invariant.ONE_AGENT, a.session(), "agents " + a.pids() + " live at once from t+" + a.atMs() / 1000.0
              + " s to at least t+" + b.atMs() / 1000.0 + " s");
        }
      }
    }
  }

  /**
   * Kandev layout: every transition of ours has its event in the outbox, in the same order per
   * session, all published; and NATS delivered them in that order (duplicates of a redelivery aside).
   */
  private void checkOutbox() throws Exception {
    Map<String, List<String>> outbox = new LinkedHashMap<>();
    long unpublished = campaign.cluster.fixtures.count("SELECT count(*) FROM kandev_event_outbox WHERE published_at IS NULL");
    if (unpublished > 0) {
      violation(Invariant.OUTBOX_IN_ORDER, "-", unpublished + " outbox events never published");
    }
    Map<String, String> idOf = new LinkedHashMap<>();
    for (String envelope : campaign.cluster.fixtures.strings(
        "SELECT envelope::text FROM kandev_event_outbox WHERE subject = 'task_session.state_changed' ORDER BY seq")) {
      JsonNode node = Json.mapper().readTree(envelope);
      JsonNode data = node.get("data");
      String session = data.get("session_id").asText();
      outbox.computeIfAbsent(session, k -> new ArrayList<>())
          .add(data.get("old_state").asText() + ">" + data.get("new_state").asText());
      idOf.put(node.get("id").asText(), session);
    }
    Map<String, List<String>> delivered = new LinkedHashMap<>();
    Set<String> seenIds = new HashSet<>();
    for (Message message : campaign.bus.more(Duration.ofSeconds(2))) {
      if (!message.getSubject().equals("task_session.state_changed")) {
        continue;
      }
      JsonNode node = Json.mapper().readTree(new String(message.getData(), StandardCharsets.UTF_8));
      if (!seenIds.add(node.get("id").asText())) {
        continue; // a redelivery: at least once, recognisable by id
      }
      JsonNode data = node.get("data");
      delivered.computeIfAbsent(data.get("session_id").asText(), k -> new ArrayList<>())
          .add(data.get("old_state").asText() + ">" + data.get("new_state").asText());
    }
    for (String session : campaign.sessions) {
      List<String> transitions = campaign.cluster.transitions(session);
      List<String> events = outbox.getOrDefault(session, List.of());
      if (!transitions.equals(events)) {
        violation(Invariant.OUTBOX_IN_ORDER, session, "transitions " + transitions + " but outbox events " + events);
      }
      List<String> arrived = delivered.getOrDefault(session, List.of());
      if (!arrived.equals(events)) {
        violation(Invariant.OUTBOX_IN_ORDER, session, "outbox events " + events + " but NATS delivered " + arrived);
      }
    }
  }

  /** No secret (the App's private key, a minted installation token) in a log, a history or the campaign's output. */
  private void checkSecrets() throws IOException {
    List<String> secrets = new ArrayList<>();
    secrets.add(campaign.cluster.gitHubApp.privateKeyLine);
    campaign.cluster.gitHubApp.server.issued().forEach(t -> secrets.add(t.token()));
    List<Path> files = new ArrayList<>();
    for (Path dir : List.of(campaign.cluster.logDir(), campaign.cluster.stateDir())) {
      if (Files.isDirectory(dir)) {
        try (Stream<Path> walk = Files.walk(dir)) {
          walk.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().endsWith(".db")
              && !p.getFileName().toString().contains(".db-")).forEach(files::add);
        }
      }
    }
    for (Path file : files) {
      String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
      for (String secret : secrets) {
        if (!secret.isBlank() && text.contains(secret)) {
          violation(Invariant.NO_SECRET, "-", "a secret (" + secret.substring(0, 4) + "…) in " + file);
        }
      }
    }
    for (List<Run> list : runs.values()) {
      for (Run run : list) {
        String json = campaign.cluster.client().fetchHistory(ResumeRequest.workflowId(run.session()), run.runId()).toJson(false);
        for (String secret : secrets) {
          if (!secret.isBlank() && json.contains(secret)) {
            violation(Invariant.NO_SECRET, run.session(), "a secret in the history of run " + run.runId());
          }
        }
      }
    }
    if (campaign.outputFile != null && Files.exists(campaign.outputFile)) {
      String text = Files.readString(campaign.outputFile);
      for (String secret : secrets) {
        if (!secret.isBlank() && text.contains(secret)) {
          violation(Invariant.NO_SECRET, "-", "a secret in the campaign's own output " + campaign.outputFile);
        }
      }
    }
  }

  private String summary() {
    Map<String, Integer> outcomes = new TreeMap<>();
    int total = 0;
    for (List<Run> list : runs.values()) {
      for (Run run : list) {
        total++;
        String key = run.status().equals("COMPLETED") && run.outcome().result() != null
            ? run.outcome().result().outcome().name()
            : run.status().equals("FAILED") ? "FAILED " + run.outcome().failureType() : run.status();
        outcomes.merge(key, 1, Integer::sum);
      }
    }
    Map<String, Integer> faults = new TreeMap<>();
    campaign.schedule.faults().forEach(f -> faults.merge(f.kind().name(), 1, Integer::sum));
    long skipped;
    synchronized (campaign.history.faults) {
      skipped = campaign.history.faults.stream().filter(f -> f.what().contains("skipped")).count();
    }
    long restartRecovery = runs.values().stream().flatMap(List::stream)
        .filter(r -> ResumeRequest.RESTART_RECOVERY.equals(r.reason())).count();
    StringBuilder out = new StringBuilder();
    out.append("chaos summary: seed ").append(campaign.schedule.seed()).append(", layout ")
        .append(campaign.schedule.layout().name().toLowerCase()).append('\n');
    out.append("  resumes (runs): ").append(total).append(" (restart recovery ").append(restartRecovery)
        .append(", operations ").append(campaign.history.ops.size()).append(")\n");
    outcomes.forEach((k, v) -> out.append("    ").append(k).append(": ").append(v).append('\n'));
    out.append("  faults scheduled: ").append(campaign.schedule.faults().size()).append(" (skipped at their time: ")
        .append(skipped).append(")\n");
    faults.forEach((k, v) -> out.append("    ").append(k).append(": ").append(v).append('\n'));
    out.append("  samples: ").append(campaign.history.samples).append('\n');
    out.append("  violations: ").append(violations.size()).append('\n');
    violations.forEach(v -> out.append("    ").append(v).append('\n'));
    return out.toString();
  }

  /** Each violating session's story: its rows, transitions, runs with their steps, operations and the faults around them. */
  private String stories() {
    Set<String> sessions = new LinkedHashSet<>();
    violations.stream().map(Violation::session).filter(s -> !s.equals("-")).forEach(sessions::add);
    StringBuilder out = new StringBuilder();
    for (String session : sessions) {
      out.append("=== story of ").append(session).append(" ===\n");
      violations.stream().filter(v -> v.session().equals(session)).forEach(v -> out.append("violation: ").append(v).append('\n'));
      try {
        out.append("session row: ").append(campaign.cluster.fixtures.string("SELECT row_to_json(s)::text FROM task_sessions s"
            + " WHERE id = ?", session)).append('\n');
        out.append("agent row: ").append(campaign.cluster.executor(session).orElse(null)).append('\n');
        out.append("locks: ").append(campaign.cluster.fixtures.strings("SELECT row_to_json(l)::text FROM resume_locks l"
            + " WHERE session_id = ?", session)).append('\n');
        out.append("leases: ").append(campaign.cluster.fixtures.strings("SELECT id || ' created ' || created_at || ' revoked '"
            + " || coalesce(revoked_at::text, '-') FROM credential_leases WHERE session_id = ? ORDER BY created_at", session))
            .append('\n');
        out.append("transitions: ").append(campaign.cluster.fixtures.strings("SELECT at || ' ' || from_state || '>' || to_state"
            + " || ' (' || reason || ')' FROM session_events WHERE session_id = ? ORDER BY id", session)).append('\n');
      } catch (RuntimeException e) {
        out.append("rows unreadable: ").append(e).append('\n');
      }
      for (Run run : runsOf(session)) {
        out.append("run ").append(run.runId()).append(' ').append(run.mode()).append(' ').append(run.reason())
            .append(' ').append(run.started()).append("..").append(run.closed()).append(" -> ").append(run.outcome())
            .append(" listed ").append(run.listedOutcome()).append('\n');
        try {
          WorkflowExecutionHistory history = campaign.cluster.client().fetchHistory(
              ResumeRequest.workflowId(session), run.runId());
          out.append("  steps: ").append(HistorySteps.of(history)).append('\n');
        } catch (RuntimeException e) {
          out.append("  history unreadable: ").append(e).append('\n');
        }
      }
      List<OpRecord> ops = opsOf(session);
      ops.forEach(op -> out.append("op: ").append(op).append('\n'));
      long from = ops.stream().mapToLong(OpRecord::startedMs).min().orElse(0) - 20_000;
      long to = ops.stream().mapToLong(OpRecord::endedMs).max().orElse(Long.MAX_VALUE) + 20_000;
      synchronized (campaign.history.faults) {
        for (FaultEvent fault : campaign.history.faults) {
          if (fault.atMs() >= from && fault.atMs() <= to && (fault.what().contains(session)
              || !fault.what().startsWith("Kandev"))) {
            out.append("fault: ").append(fault).append('\n');
          }
        }
      }
    }
    return out.toString();
  }

  static String modeOf(ResumeMode mode) {
    return mode.name();
  }
}
