package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.acp.AgentHost;
import dev.kandev.recovery.activities.acp.AgentHostSettings;
import dev.kandev.recovery.activities.acp.AgentProfiles;
import dev.kandev.recovery.activities.acp.UnownedAgentReaper;
import dev.kandev.recovery.activities.credentials.CredentialBroker;
import dev.kandev.recovery.activities.credentials.CredentialHelper;
import dev.kandev.recovery.activities.credentials.CredentialPolicyResolver;
import dev.kandev.recovery.activities.credentials.GitHubAppCredentialResolver;
import dev.kandev.recovery.activities.credentials.CredentialRedemptionServer;
import dev.kandev.recovery.activities.credentials.GitCredentialEnvironment;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.resume.AgentActivitiesImpl;
import dev.kandev.recovery.activities.resume.CredentialActivitiesImpl;
import dev.kandev.recovery.activities.resume.ResumeLockActivitiesImpl;
import dev.kandev.recovery.activities.resume.SessionActivitiesImpl;
import dev.kandev.recovery.activities.runtime.CommandRunner;
import dev.kandev.recovery.activities.runtime.NpmLaunch;
import dev.kandev.recovery.activities.runtime.RuntimeUpdateActivitiesImpl;
import dev.kandev.recovery.activities.runtime.StdioAcpProbe;
import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.RuntimeJobStore;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.store.TranscriptStore;
import dev.kandev.recovery.activities.store.WorkerPresenceStore;
import dev.kandev.recovery.worker.limits.LaunchSlots;
import dev.kandev.recovery.worker.observability.RecoveryMetrics;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.resume.LaunchHeartbeat;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflow;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflowImpl;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflow;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflowImpl;
import io.temporal.common.converter.DataConverterException;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import io.temporal.worker.WorkflowImplementationOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * The real parts one worker process drives, built once from the settings: the worker's only
 * composition root (the commands open the database and the Temporal connection and hand them in).
 */
public final class Components implements AutoCloseable {
  private final Settings settings;
  final Transactions transactions;
  final SessionStore sessions;
  final SessionIdentityStore identities;
  final ResumeLockStore locks;
  final RuntimeJobStore runtimeJobs;
  /** The agents whose runtime may be updated; production: Kandev's built-ins. */
  final BuiltInAgents builtInAgents;
  final AgentProfiles agentProfiles;
  /** How each launch starts a built-in npm agent (installed bin or npx); the runtime probe starts it alike. */
  private final NpmLaunch npmLaunch;
  final CredentialBroker broker;
  final CredentialRedemptionServer redemption;
  final AgentHost agentHost;
  private final ExecutorsRunningStore executors;
  final WorkerPresenceStore presence;
  private final Periodic reaping;
  private final GitCredentialEnvironment credentialEnvironment;
  private final LaunchSlots launchSlots;
  private final AtomicBoolean closed = new AtomicBoolean();

  public Components(Settings settings, Database database) {
    this(settings, database, BuiltInAgents.KANDEV, null);
  }

  /** The production parts, counting what they do in {@code metrics}. */
  public Components(Settings settings, Database database, RecoveryMetrics metrics) {
    this(settings, database, BuiltInAgents.KANDEV, null, metrics);
  }

  /**
   * With another agent catalogue (tests add the packaged ACP test agent) and, if not null, these
   * agent profiles instead of the ones derived from the catalogue and KANDEV_AGENTS_FILE.
   */
  public Components(Settings settings, Database database, BuiltInAgents builtInAgents, AgentProfiles agentProfiles) {
    this(settings, database, builtInAgents, agentProfiles, RecoveryMetrics.none());
  }

  private Components(Settings settings, Database database, BuiltInAgents builtInAgents, AgentProfiles agentProfiles,
      RecoveryMetrics metrics) {
    this.settings = settings;
    this.transactions = database.transactions();
    this.sessions = new SessionStore(Json.mapper());
    this.identities = new SessionIdentityStore();
    this.locks = new ResumeLockStore();
    this.runtimeJobs = new RuntimeJobStore(Json.mapper());
    this.builtInAgents = builtInAgents;
    this.agentProfiles = agentProfiles != null ? agentProfiles
        : AgentCatalog.load(builtInAgents, settings.npm(), settings.agentsFile());
    this.broker = new CredentialBroker(transactions, new CredentialPolicyResolver(Json.mapper()),
        List.of(new GitHubAppCredentialResolver(settings.gitHubApp(), Json.mapper(), Clock.systemUTC())),
        Json.mapper(), Clock.systemUTC());
    this.redemption = CredentialRedemptionServer.start(broker, settings.credentialBrokerPort());
    this.credentialEnvironment = new GitCredentialEnvironment(redemption.url(), installCredentialHelper());
    this.executors = new ExecutorsRunningStore();
    this.presence = new WorkerPresenceStore();
    this.npmLaunch = new NpmLaunch(settings.npm(), new CommandRunner());
    this.agentHost = new AgentHost(new AgentHostSettings(settings.host(), settings.workerInstance(),
        this.agentProfiles, settings.acpTimeouts(), settings.permissionPolicy(), settings.agentEnvironment(),
        npmLaunch),
        transactions, identities, executors, new TranscriptStore());
    UnownedAgentReaper reaper = new UnownedAgentReaper(agentHost, transactions, sessions, executors);
    this.reaping = Periodic.every(settings.agentReapInterval(), "unowned-agent-reaper",
        () -> metrics.agentsReaped(reaper.reapOnce()));
    metrics.agentsRunning(() -> agentHost.runningExecutions().size());
    this.launchSlots = new LaunchSlots(settings.launchLimits(), () -> agentHost.runningExecutions().size());
    agentHost.onAgentStopped((sessionId, executionId) -> launchSlots.agentStopped());
    metrics.launchesUnderWay(launchSlots::launching);
  }

  /** Registers this worker's workflows and activities on its three queues (see below). */
  public void register(BiFunction<String, WorkerOptions, Worker> newWorker, String queue) {
    register(newWorker, queue, UnaryOperator.identity());
  }

  /**
   * Registers the workflows and every activity (each {@code decorate}d; tests wrap them) on the
   * queues this worker polls: the shared {@code queue} (workflows, store and broker steps; what
   * starters use), its host's queue (stopping agents, runtime update steps) and its host's launch
   * queue, whose slots {@link LaunchSlots} caps. Every activity is on every queue: the workflows
   * choose where each step goes.
   */
  public void register(BiFunction<String, WorkerOptions, Worker> newWorker, String queue, UnaryOperator<Object> decorate) {
    Object[] activities = activities().stream().map(decorate).toArray();
    Worker shared = newWorker.apply(queue, RecoveryWorker.options());
    registerWorkflows(shared);
    shared.registerActivitiesImplementations(activities);
    newWorker.apply(RecoveryTaskQueue.ofHost(queue, settings.host()), RecoveryWorker.options())
        .registerActivitiesImplementations(activities);
    newWorker.apply(RecoveryTaskQueue.launchesOf(queue, settings.host()), RecoveryWorker.launchOptions(launchSlots))
        .registerActivitiesImplementations(activities);
  }

  void registerWorkflows(Worker worker) {
    // An input a starter sent that does not deserialize fails the workflow instead of failing its
    // workflow task again and again: RecoveryDataConverter makes it INVALID_REQUEST (an
    // ApplicationFailure fails the workflow as it is); this covers any other payload.
    WorkflowImplementationOptions failOnMalformedInput =
        WorkflowImplementationOptions.newBuilder().setFailWorkflowExceptionTypes(DataConverterException.class).build();
    WorkflowImplementationOptions resumeOptions = WorkflowImplementationOptions.newBuilder(failOnMalformedInput)
        .setActivityOptions(LaunchHeartbeat.withTimeout(settings.launchHeartbeatTimeout()))
        .build();
    worker.registerWorkflowImplementationFactory(
        ResumeSessionWorkflow.class, () -> new ResumeSessionWorkflowImpl(settings.hostWait()), resumeOptions);
    worker.registerWorkflowImplementationFactory(
        RuntimeUpdateWorkflow.class, () -> new RuntimeUpdateWorkflowImpl(builtInAgents, settings.hostWait()), failOnMalformedInput);
  }

  /** One implementation of each activity interface, over the real parts. */
  List<Object> activities() {
    return List.of(
        new ResumeLockActivitiesImpl(transactions, locks, settings.resumeLockTtl()),
        new SessionActivitiesImpl(transactions, sessions, identities, executors, Json.mapper(),
            agentProfiles.ids()::contains, agentHost::isRunning, settings.workerInstance(), settings.host(), locks,
            settings.resumeLockTtl()),
        new CredentialActivitiesImpl(broker),
        new AgentActivitiesImpl(agentHost, transactions, sessions, executors, broker, credentialEnvironment),
        new RuntimeUpdateActivitiesImpl(builtInAgents, settings.npm(), new CommandRunner(), npmLaunch,
            new StdioAcpProbe(Json.mapper()), transactions, runtimeJobs));
  }

  /** Restores the sessions an ended resume left STARTING, resuming through {@code resumes}. */
  StaleStartingRecovery staleStartingRecovery(ResumeClient resumes) {
    return new StaleStartingRecovery(transactions, sessions, locks, resumes);
  }

  /** Resumes the sessions whose agents gone workers on this host ran, through {@code resumes}. */
  RestartRecovery restartRecovery(ResumeClient resumes) {
    return new RestartRecovery(transactions, executors, resumes, settings.host(), settings.workerInstance());
  }

  private static Path installCredentialHelper() {
    try {
      return CredentialHelper.install(Files.createTempDirectory("kandev-credential-helper"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot install the git credential helper", e);
    }
  }

  /** Stops the agents this worker runs and the redemption endpoint, once; the database is the caller's. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    reaping.close();
    agentHost.close();
    redemption.close();
  }
}
