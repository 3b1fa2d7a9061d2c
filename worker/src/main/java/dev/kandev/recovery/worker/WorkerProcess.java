package dev.kandev.recovery.worker;

import dev.kandev.recovery.activities.store.Database;
import dev.kandev.recovery.activities.store.WorkerPresenceStore;
import dev.kandev.recovery.worker.config.BuildInfo;
import dev.kandev.recovery.worker.config.LaunchAdapter;
import dev.kandev.recovery.worker.config.Settings;
import dev.kandev.recovery.worker.config.WorkerVersioning;
import dev.kandev.recovery.worker.events.KandevBusRelay;
import dev.kandev.recovery.worker.events.KandevBusRelayOwner;
import dev.kandev.recovery.worker.events.KandevBusSettings;
import dev.kandev.recovery.worker.observability.HealthServer;
import dev.kandev.recovery.worker.observability.Observability;
import dev.kandev.recovery.worker.observability.Readiness;
import dev.kandev.recovery.worker.observability.RecoveryMetrics;
import dev.kandev.recovery.worker.recovery.Periodic;
import dev.kandev.recovery.worker.recovery.Predecessor;
import dev.kandev.recovery.worker.recovery.RestartRecovery;
import dev.kandev.recovery.worker.recovery.StaleStartingRecovery;
import dev.kandev.recovery.worker.retention.RetentionSchedule;
import dev.kandev.recovery.workflows.retention.RetentionPolicy;
import dev.kandev.recovery.workflows.RecoveryTaskQueue;
import dev.kandev.recovery.workflows.client.ResumeClient;
import io.temporal.client.WorkflowClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Starts the worker, restores and resumes what ended or gone workers left behind, and runs until the
 * process is asked to stop, beating its presence and repeating those checks.
 */
public final class WorkerProcess {
  /** How often the worker looks for sessions an ended resume left STARTING (besides at start). */
  private static final Duration STALE_STARTING_CHECK = Duration.ofMinutes(5);
  /** How often the worker looks for sessions whose agents a gone worker on this host ran (besides at start). */
  private static final Duration LOST_AGENTS_CHECK = Duration.ofMinutes(1);

  private WorkerProcess() {}

  /** Serves until {@code stop} fires ({@code command}: {@code dev} or {@code worker}, whose predecessor it looks for); returns once its agents are stopped and recorded and the worker has stopped. */
  public static void serve(Settings settings, Database database, WorkflowClient client, StopSignal stop, String command)
      throws InterruptedException {
    try (Observability observability = Observability.create()) {
      serve(settings, database, client, stop, command, observability);
    }
  }

  /** The same, counting in {@code observability} (whose SDK scope the client's connection reports to). */
  public static void serve(Settings settings, Database database, WorkflowClient client, StopSignal stop, String command,
      Observability observability) throws InterruptedException {
    BackgroundWarmUp warmUp = BackgroundWarmUp.start(client, TemporalWorkers.factoryOptions());
    RecoveryMetrics metrics = observability.metrics();
    observability.bindStore(database);
    Components components = Components.of(settings, database, metrics);
    try {
      metrics.beat(components::beat);
      takeOverFromPredecessor(settings, components, command);
      ResumeClient resumes = new ResumeClient(client, settings.taskQueue());
      WorkerVersioning versioning = versioning(settings, command, observability);
      // Closed in reverse: the HTTP endpoint, the worker, the reaper, the parts (stopping and
      // recording the agents), and only then the presence beat.
      try (Periodic beating = Periodic.every(WorkerPresenceStore.BEAT_EVERY, "worker-presence",
          () -> metrics.beat(components::beat));
          components;
          Periodic reaping = Periodic.every(settings.agentReapInterval(), "unowned-agent-reaper",
              () -> metrics.agentsReaped(components.reapUnownedAgents()));
          TemporalWorkers worker = TemporalWorkers.start(client, settings.taskQueue(), components.registrations(),
              versioning, warmUp);
          HealthServer http = serveHttp(settings, database, client, worker, observability)) {
        System.out.printf("Credentials  %s (git credential redemption, loopback)%n", components.redemptionUrl());
        System.out.printf("Agents       %s%n", components.agentProfiles().ids());
        if (settings.launchAdapter().launchesHere()) {
          System.out.printf("Host         %s: queues %s, %s (at most %d launches, %d agents at once)%n", settings.host(),
              RecoveryTaskQueue.ofHost(settings.taskQueue(), settings.host()),
              RecoveryTaskQueue.launchesOf(settings.taskQueue(), settings.host()),
              settings.launchLimits().maxLaunches(), settings.launchLimits().maxAgents());
        } else {
          System.out.printf("Host         %s: launches by Kandev's executor (%s=%s): its launch worker polls %s, %s;"
              + " this worker does not%n", settings.host(), LaunchAdapter.VARIABLE, settings.launchAdapter().setting(),
              RecoveryTaskQueue.ofHost(settings.taskQueue(), settings.host()),
              RecoveryTaskQueue.launchesOf(settings.taskQueue(), settings.host()));
        }
        scheduleRetention(settings, client);
        StaleStartingRecovery stale = components.staleStartingRecovery(resumes);
        List<String> restored = metrics.staleStartingRestored(stale.restoreStaleSessions());
        System.out.printf("Stale        %d session(s) left STARTING by an ended resume, restored: %s%n", restored.size(), restored);
        // This worker runs the resumes it starts: their first workflow tasks come back in the starts' answers.
        RestartRecovery lost = components.restartRecovery(versioning.enabled() ? resumes : resumes.startingEagerly());
        List<String> resumed = metrics.restartRecovered(lost.resumeLostSessions());
        System.out.printf("Recovery     %d session(s) whose agent was lost on %s: %s; looks again every %d s (a worker"
            + " that stops beating counts as gone %d s after its last beat)%n", resumed.size(), settings.host(), resumed,
            LOST_AGENTS_CHECK.toSeconds(), WorkerPresenceStore.GONE_AFTER.toSeconds());
        try (KandevBusRelay.Background kandevBus = relayKandevBus(settings, database);
            Periodic staleCheck = Periodic.every(STALE_STARTING_CHECK, "stale-starting-recovery",
                () -> metrics.staleStartingRestored(stale.restoreStaleSessions()));
            Periodic lostCheck = Periodic.every(LOST_AGENTS_CHECK, "lost-agent-recovery",
                () -> metrics.restartRecovered(lost.resumeLostSessions()))) {
          System.out.println("Ready. Press Ctrl-C to stop.");
          stop.await();
        }
      }
    } finally {
      components.close(); // already closed unless the start failed before the parts were in use
      if (leave(components, settings.workerInstance())) {
        Predecessor.forget(settings.pidFile(command), settings.workerInstance());
      }
    }
  }

  /** {@code dev} always polls unversioned: a new run would otherwise wait until someone made its version current. */
  private static WorkerVersioning versioning(Settings settings, String command, Observability observability) {
    WorkerVersioning versioning = "dev".equals(command) ? settings.versioning().off() : settings.versioning();
    observability.buildInfo(BuildInfo.version(), versioning.enabled() ? versioning.deploymentName() : "", versioning.buildId());
    System.out.printf("Version      kandev-recovery %s; versioning %s%n", BuildInfo.version(), versioning.describe());
    return versioning;
  }

  /** A server that cannot keep the schedule (the in-memory fallback of dev) costs retention, not the worker. */
  private static void scheduleRetention(Settings settings, WorkflowClient client) {
    try {
      RetentionSchedule.ensure(client, settings.taskQueue(), settings.retention());
      RetentionPolicy p = settings.retention().policy();
      System.out.printf("Retention    schedule %s every %d s: session_events %d d, session_messages %d d,"
          + " executors_running %d d, runtime_update_jobs %d d%n", RetentionSchedule.id(settings.taskQueue()),
          settings.retention().every().toSeconds(), p.sessionEventsDays(), p.sessionMessagesDays(),
          p.executorsRunningDays(), p.runtimeUpdateJobsDays());
    } catch (RuntimeException e) {
      System.out.println("Retention    no schedule (nothing is pruned): " + e.getMessage());
    }
  }

  /**
   * The relay of our outbox to Kandev's NATS bus (KANDEV_NATS_URL); null if it is not set, or if
   * Kandev's process relays the outbox itself (KANDEV_BUS_RELAY=kandev).
   */
  private static KandevBusRelay.Background relayKandevBus(Settings settings, Database database) {
    Optional<KandevBusSettings> workerRelay = settings.kandevBusRelay().workerRelay(settings.kandevBus());
    if (settings.kandevBusRelay() == KandevBusRelayOwner.KANDEV) {
      System.out.println("Kandev bus   relayed by Kandev's process (KANDEV_BUS_RELAY=kandev): events are stored in"
          + " kandev_event_outbox, the worker publishes none");
      return null;
    }
    if (workerRelay.isEmpty()) {
      System.out.println("Kandev bus   none (KANDEV_NATS_URL unset): no events are published");
      return null;
    }
    KandevBusSettings bus = workerRelay.get();
    System.out.printf("Kandev bus   %s as %s: outbox events published after their commits%n", bus.display(), bus.clientId());
    return KandevBusRelay.runInBackground(bus, database.transactions());
  }

  /** The HTTP endpoint of KANDEV_HTTP_PORT; null if it is not set. */
  private static HealthServer serveHttp(Settings settings, Database database, WorkflowClient client,
      TemporalWorkers worker, Observability observability) {
    if (settings.httpPort().isEmpty()) {
      return null;
    }
    Readiness readiness = new Readiness(database.dataSource(), settings.database(),
        client.getWorkflowServiceStubs(), settings.temporalAddress());
    HealthServer server = HealthServer.start(settings.httpAddress(), settings.httpPort().getAsInt(), observability,
        worker::isPolling, readiness::problems);
    System.out.printf("HTTP         http://%s/metrics, /healthz, /readyz%n", server.authority());
    return server;
  }

  /**
   * The process of the same command that ran before with this state folder on this host: if its process is gone (killed,
   * crashed), it is gone for restart recovery too, at once rather than a minute after its last beat.
   */
  private static void takeOverFromPredecessor(Settings settings, Components components, String command) {
    Path file = settings.pidFile(command);
    Predecessor.read(file)
        .filter(p -> p.host().equals(settings.host()) && !p.workerInstance().equals(settings.workerInstance()))
        .filter(p -> !p.isAlive())
        .ifPresent(p -> {
          components.leave(p.workerInstance(), "gone");
          System.out.printf("Predecessor  %s (pid %d) is gone: what it left is recovered now%n", p.workerInstance(), p.pid());
        });
    Predecessor.record(file, settings.workerInstance(), settings.host());
  }

  /** After its agents were stopped and recorded: this instance is no longer alive. Whether that was recorded. */
  private static boolean leave(Components components, String instance) {
    try {
      components.leave(instance, "stopped");
      return true;
    } catch (RuntimeException e) {
      System.err.println("could not record this worker as stopped (it will count as gone soon): " + e.getMessage());
      return false;
    }
  }
}
