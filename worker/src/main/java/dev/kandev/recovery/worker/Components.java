package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.agent.AgentHost;
import dev.kandev.recovery.activities.agent.AgentHostSettings;
import dev.kandev.recovery.activities.agent.AgentProfiles;
import dev.kandev.recovery.activities.agent.UnownedAgentReaper;
import dev.kandev.recovery.activities.credentials.broker.CredentialBroker;
import dev.kandev.recovery.activities.credentials.broker.CredentialPolicyResolver;
import dev.kandev.recovery.activities.credentials.github.GitHubAppCredentialResolver;
import dev.kandev.recovery.activities.credentials.redemption.CredentialHelper;
import dev.kandev.recovery.activities.credentials.redemption.CredentialRedemptionServer;
import dev.kandev.recovery.activities.credentials.redemption.GitCredentialEnvironment;
import dev.kandev.recovery.activities.json.Json;
import dev.kandev.recovery.activities.resume.AgentActivitiesImpl;
import dev.kandev.recovery.activities.resume.CredentialActivitiesImpl;
import dev.kandev.recovery.activities.resume.ResumeLockActivitiesImpl;
import dev.kandev.recovery.activities.resume.SessionActivitiesImpl;
import dev.kandev.recovery.activities.resume.TemporalResumeRuns;
import dev.kandev.recovery.activities.retention.RetentionActivitiesImpl;
import dev.kandev.recovery.activities.runtime.CommandRunner;
import dev.kandev.recovery.activities.runtime.NpmLaunch;
import dev.kandev.recovery.activities.runtime.RuntimeUpdateActivitiesImpl;
import dev.kandev.recovery.activities.runtime.StdioAcpProbe;
import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.activities.store.ExecutorsRunningStore;
import dev.kandev.recovery.activities.store.ResumeLockStore;
import dev.kandev.recovery.activities.store.RetentionStore;
import dev.kandev.recovery.activities.store.RuntimeJobStore;
import dev.kandev.recovery.activities.store.StoreLayout;
import dev.kandev.recovery.activities.store.SessionIdentityStore;
import dev.kandev.recovery.activities.store.SessionStore;
import dev.kandev.recovery.activities.store.Transactions;
import dev.kandev.recovery.activities.store.WorkerPresenceStore;
import dev.kandev.recovery.activities.store.kandev.KandevEventOutbox;
import dev.kandev.recovery.activities.store.kandev.KandevLayoutStores;
import dev.kandev.recovery.worker.events.KandevEventOutboxes;
import dev.kandev.recovery.worker.config.AgentCatalog;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.limits.LaunchSlots;
import dev.kandev.recovery.worker.observability.RecoveryMetrics;
import dev.kandev.recovery.worker.recovery.RestartRecovery;
import dev.kandev.recovery.worker.recovery.StaleStartingRecovery;
import dev.kandev.recovery.workflows.client.ResumeClient;
import dev.kandev.recovery.workflows.resume.LaunchHeartbeat;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflow;
import dev.kandev.recovery.workflows.resume.ResumeSessionWorkflowImpl;
import dev.kandev.recovery.workflows.retention.RetentionWorkflowImpl;
import dev.kandev.recovery.workflows.runtime.BuiltInAgents;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflow;
import dev.kandev.recovery.workflows.runtime.RuntimeUpdateWorkflowImpl;
import io.temporal.common.converter.DataConverterException;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkflowImplementationOptions;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.function.Predicate;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The real parts one worker process drives, built once from the settings: the worker's only
 * composition root (the commands open the database and the Temporal connection and hand them in).
 * It builds what the Temporal workers register ({@link #registrations()}) and the checks the
 * process repeats; {@link TemporalWorkers} and {@link WorkerProcess} run them.
 */
public final class Components implements AutoCloseable {
  private final Settings settings;
  /** Where Kandev's rows are: our mirror or Kandev's own tables (docs/kandev.md). */
  private final StoreLayout layout;
  private final Transactions transactions;
  private final SessionStore sessions;
  private final SessionIdentityStore identities;
  private final ResumeLockStore locks;
  private final RuntimeJobStore runtimeJobs;
  /** The agents whose runtime may be updated; production: Kandev's built-ins. */
  private final BuiltInAgents builtInAgents;
  private final AgentProfiles agentProfiles;
  /** How each launch starts a built-in npm agent (installed bin or npx); the runtime probe starts it alike. */
  private final NpmLaunch npmLaunch;
  private final CredentialBroker broker;
  private final CredentialRedemptionServer redemption;
  private final AgentHost agentHost;
  private final ExecutorsRunningStore executors;
  private final WorkerPresenceStore presence;
  private final UnownedAgentReaper reaper;
  private final Path credentialHelper;
  private final GitCredentialEnvironment credentialEnvironment;
  private final LaunchSlots launchSlots;
  /** Launches run here while their activities heartbeat; the launch slots bound how many at once. */
  private final ExecutorService launchThreads = Executors.newCachedThreadPool(launch -> {
    Thread thread = new Thread(launch, "agent-launch");
    thread.setDaemon(true);
    return thread;
  });
  private final AtomicBoolean closed = new AtomicBoolean();

  /** The production parts: Kandev's built-in agents and the profiles KANDEV_AGENTS_FILE adds, counted in {@code metrics}. */
  public static Components of(Settings settings, Database database, RecoveryMetrics metrics) {
    return new Components(settings, database, BuiltInAgents.KANDEV,
        AgentCatalog.load(BuiltInAgents.KANDEV, settings.npm(), settings.agentsFile()), metrics);
  }

  /** With another agent catalogue and agent profiles (tests add the packaged ACP test agent). */
  public Components(Settings settings, Database database, BuiltInAgents builtInAgents, AgentProfiles agentProfiles,
      RecoveryMetrics metrics) {
    this.settings = settings;
    this.transactions = database.transactions();
    // The mirror or Kandev's own tables (docs/kandev.md); on Kandev's, each transition also stores
    // Kandev's bus events in our outbox when someone publishes them (KANDEV_NATS_URL, or Kandev's
    // own relay with KANDEV_BUS_RELAY=kandev).
    this.layout = database.layout();
    KandevLayoutStores layoutStores = KandevLayoutStores.of(layout, Json.mapper(), layout.isKandev()
        ? KandevEventOutboxes.of(settings.kandevBusRelay(), settings.kandevBus(), layout.kandevSchema())
        : KandevEventOutbox.NONE);
    this.sessions = layoutStores.sessions();
    this.identities = layoutStores.identities();
    this.locks = new ResumeLockStore();
    this.runtimeJobs = new RuntimeJobStore(Json.mapper());
    this.builtInAgents = builtInAgents;
    this.agentProfiles = agentProfiles;
    this.broker = new CredentialBroker(transactions, new CredentialPolicyResolver(Json.mapper()),
        List.of(new GitHubAppCredentialResolver(settings.gitHubApp(), Json.mapper(), Clock.systemUTC())),
        Json.mapper(), Clock.systemUTC(), database.layout());
    this.executors = layoutStores.executors();
    this.presence = new WorkerPresenceStore();
    this.npmLaunch = new NpmLaunch(settings.npm(), new CommandRunner());
    this.agentHost = new AgentHost(new AgentHostSettings(settings.host(), settings.workerInstance(),
        this.agentProfiles, settings.acpTimeouts(), settings.permissionPolicy(), settings.agentEnvironment(),
        npmLaunch),
        transactions, identities, executors, layoutStores.transcript());
    // Installed before the endpoint starts: nothing is left listening if the install fails.
    this.credentialHelper = installCredentialHelper();
    // A lease redeems only for its session's agent on this worker, or that agent's descendants.
    this.redemption = CredentialRedemptionServer.start(broker, settings.credentialBrokerPort(), agentHost::agentProcess);
    this.credentialEnvironment = new GitCredentialEnvironment(redemption.url(), credentialHelper);
    this.reaper = new UnownedAgentReaper(agentHost, transactions, sessions, executors);
    metrics.agentsRunning(() -> agentHost.runningExecutions().size());
    this.launchSlots = new LaunchSlots(settings.launchLimits(), () -> agentHost.runningExecutions().size());
    agentHost.onAgentStopped((sessionId, executionId) -> launchSlots.agentStopped());
    metrics.launchesUnderWay(launchSlots::launching);
  }

  /**
   * What this worker's Temporal workers register: the workflows, one implementation of each
   * activity interface over the real parts, and the launch queue's slots.
   */
  public WorkerRegistrations registrations() {
    return new WorkerRegistrations(settings.host(), this::registerWorkflows, activities(), launchSlots,
        settings.launchAdapter().launchesHere());
  }

  /** Versioned workers register the implementations that declare a versioning behaviour (ADR 0002). */
  private void registerWorkflows(Worker worker, boolean versioned) {
    // An input a starter sent that does not deserialize fails the workflow instead of failing its
    // workflow task again and again: RecoveryDataConverter makes it INVALID_REQUEST (an
    // ApplicationFailure fails the workflow as it is); this covers any other payload.
    WorkflowImplementationOptions failOnMalformedInput =
        WorkflowImplementationOptions.newBuilder().setFailWorkflowExceptionTypes(DataConverterException.class).build();
    WorkflowImplementationOptions resumeOptions = WorkflowImplementationOptions.newBuilder(failOnMalformedInput)
        .setActivityOptions(LaunchHeartbeat.withTimeout(settings.launchHeartbeatTimeout()))
        .build();
    worker.registerWorkflowImplementationFactory(
        ResumeSessionWorkflow.class,
        () -> versioned ? new ResumeSessionWorkflowImpl.Pinned(settings.hostWait()) : new ResumeSessionWorkflowImpl(settings.hostWait()),
        resumeOptions);
    worker.registerWorkflowImplementationFactory(
        RuntimeUpdateWorkflow.class,
        () -> versioned
            ? new RuntimeUpdateWorkflowImpl.AutoUpgrade(builtInAgents, settings.hostWait())
            : new RuntimeUpdateWorkflowImpl(builtInAgents, settings.hostWait()),
        failOnMalformedInput);
    worker.registerWorkflowImplementationTypes(failOnMalformedInput,
        versioned ? RetentionWorkflowImpl.AutoUpgrade.class : RetentionWorkflowImpl.class);
  }

  private List<Object> activities() {
    return List.of(
        new ResumeLockActivitiesImpl(transactions, locks, settings.resumeLockTtl()),
        new SessionActivitiesImpl(transactions, sessions, identities, executors, Json.mapper(),
            knownAgent(), agentHost::isRunning, settings.workerInstance(), settings.host(), locks,
            settings.resumeLockTtl(), new TemporalResumeRuns()),
        new CredentialActivitiesImpl(broker),
        new AgentActivitiesImpl(agentHost, transactions, sessions, executors, broker, credentialEnvironment, launchThreads),
        new RuntimeUpdateActivitiesImpl(builtInAgents, settings.npm(), new CommandRunner(), npmLaunch,
            new StdioAcpProbe(Json.mapper()), transactions, runtimeJobs),
        new RetentionActivitiesImpl(transactions, new RetentionStore(layout)));
  }

  /**
   * Whether a session's agent has a profile here. Where Kandev's executor launches, Kandev knows its
   * agents, not this worker: every agent id is accepted and Kandev's launch refuses one it does not know.
   */
  private Predicate<String> knownAgent() {
    return settings.launchAdapter().launchesHere() ? agentProfiles.ids()::contains : agentId -> true;
  }

  /** Restores the sessions an ended resume left STARTING, resuming through {@code resumes}. */
  public StaleStartingRecovery staleStartingRecovery(ResumeClient resumes) {
    return new StaleStartingRecovery(transactions, sessions, locks, resumes, broker::revokeSession);
  }

  /** Resumes the sessions whose agents gone workers on this host ran, through {@code resumes}. */
  public RestartRecovery restartRecovery(ResumeClient resumes) {
    return settings.launchAdapter().launchesHere()
        ? new RestartRecovery(transactions, executors, resumes, settings.host(), settings.workerInstance())
        : RestartRecovery.leftToKandev(settings.host(), settings.workerInstance());
  }

  /** Stops this worker's agents no session wants any more; returns their session ids. */
  public List<String> reapUnownedAgents() {
    return reaper.reapOnce();
  }

  /** Records this worker alive (its presence beat), and its live agents where Kandev reads them. */
  public void beat() {
    transactions.run("record worker " + settings.workerInstance() + " alive", h -> {
      presence.beat(h, settings.workerInstance(), settings.host());
      executors.showLive(h, settings.workerInstance());
    });
  }

  /** Records {@code instance} (this worker after its agents were stopped, or a gone predecessor) no longer alive. */
  public void leave(String instance, String why) {
    transactions.run("record worker " + instance + " " + why, h -> presence.leave(h, instance));
  }

  /** The loopback URL git's credential helper redeems leases at. */
  public URI redemptionUrl() {
    return redemption.url();
  }

  public AgentProfiles agentProfiles() {
    return agentProfiles;
  }

  public AgentHost agentHost() {
    return agentHost;
  }

  /** The git credential helper this worker's agents run, in a temporary directory of its own until {@link #close}. */
  public Path credentialHelper() {
    return credentialHelper;
  }

  private static Path installCredentialHelper() {
    return CredentialHelper.installInDirectoryOfItsOwn(Path.of(System.getProperty("java.io.tmpdir")));
  }

  /**
   * Stops the agents this worker runs and the redemption endpoint, and removes the credential helper,
   * once; the database is the caller's.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    agentHost.close();
    launchThreads.shutdown();
    redemption.close();
    CredentialHelper.uninstall(credentialHelper);
  }
}
