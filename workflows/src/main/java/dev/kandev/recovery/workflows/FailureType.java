package dev.kandev.recovery.workflows;

import io.temporal.api.enums.v1.TimeoutType;
import io.temporal.failure.ApplicationFailure;
import java.util.Arrays;
import java.util.Optional;

/**
 * Every failure type a recovery workflow or activity ends with: the {@code ApplicationFailure}
 * type, the {@code failureType} of {@code ResumeFailure} and {@code errorType} of {@code
 * RuntimeUpdateResult}. The names are a contract (starters, recorded histories, docs and the Go
 * starter use them): never rename one. docs/contract.md's table lists each with the same
 * retryability and meaning ({@code FailureTypeContractTest}).
 *
 * <p>An enum rather than string constants: the set is closed and can be listed (the contract's
 * table is checked against {@link #values()}), and each type carries its retryability, so every
 * place that raises one gets it from here.
 *
 * <p>{@link #retryable()} is Temporal's sense: whether an activity that fails with the type is
 * attempted again under its step's retry policy. A failed workflow never is.
 *
 * <p>Not listed: an unexpected fault (a bug, a database outage that outlasts its retries) ends
 * with the Java class name of its exception as the type, as Temporal reports it.
 */
public enum FailureType {
  INVALID_REQUEST(false,
      "refused before any step: no input, a missing or invalid id, or an input that cannot be read; no details; nothing was done"),

  // The resume: reading and guarding the session.
  SESSION_NOT_FOUND(false, "no such session (or it was deleted during the resume); nothing changed"),
  SESSION_NOT_RESUMABLE(false, "the session is `COMPLETED`; create a new session instead"),
  AGENT_ALREADY_RUNNING(false,
      "the session is `STARTING`, or its agent already runs on this worker or on another live one (named in the message); nothing changed"),
  KANDEV_AGENT_RUNNING(false,
      "the `kandev` layout: Kandev's own executor row of the session (`executors_running`) shows a live agent of Kandev's (status `starting`, `running` or `ready`, Kandev's execution); refused before `STARTING`, nothing changed, the token untouched. Stop that agent in Kandev (or let Kandev's boot mark it stopped), then Resume again"),
  AGENT_UNKNOWN(false, "the session's agent has no profile on the worker"),
  NO_STORED_SESSION(false,
      "Resume of a session with no stored provider session (never started, or a Start fresh cleared it): refused, nothing changed; Start fresh creates one"),
  RESUME_LOCK_HELD(true, "another holder has the per-session resume lock (retried, then the resume fails)"),
  RESUME_LOCK_LOST(false,
      "this resume no longer holds its lock (a newer holder took it over, or this is a stale copy of a workflow task that a newer task of its run replaced, or of a run that ended); it writes nothing more"),
  SESSION_STATE_SUPERSEDED(false,
      "a concurrent transition of the session won: another writer (e.g. Kandev's boot moving `STARTING` to `WAITING_FOR_INPUT`) changed its state mid-resume; a launched agent is stopped and nothing is restored over that writer's state"),

  // The resume: the credential lease (docs/credentials.md).
  CREDENTIAL_SESSION_TERMINAL(false, "the session is `COMPLETED`, `FAILED` or `CANCELLED`: no credential for it"),
  CREDENTIAL_SCOPE_DENIED(false, "the lease's scope is not authorized (task, session, workspace or repository mismatch)"),
  CREDENTIAL_CONFIG_MISSING(false, "the credential policy needs configuration that is absent (GitHub App id, key, installation)"),
  CREDENTIAL_CONFIG_INVALID(false, "the credential configuration is present but unusable (malformed key, bad API base)"),
  CREDENTIAL_PROVIDER_REJECTED(false, "GitHub refused the token request (4xx)"),
  CREDENTIAL_PROVIDER_UNAVAILABLE(true, "GitHub could not be reached or failed (5xx, 429, timeout)"),
  CREDENTIAL_LEASE_INVALID(false, "the lease token or id is unknown, revoked, expired or does not match the request"),

  // The resume: the launch (docs/agents.md). One attempt; the user's Resume or Start fresh is the retry.
  AGENT_HOST_UNAVAILABLE(false,
      "no worker of the session's executor host took the launch within the host wait (down, or busy beyond its launch cap); nothing was launched, the session restored"),
  AGENT_PROCESS_START_FAILED(false, "the agent process could not be started (missing binary, bad working directory)"),
  AGENT_EXITED_BEFORE_INITIALIZE(false, "the agent process exited before it answered ACP `initialize`"),
  AGENT_INITIALIZE_FAILED(false, "ACP `initialize` timed out or returned an error"),
  AGENT_TRANSPORT_CLOSED(false, "the transport closed before `session/load`, `session/resume` or `session/new` completed"),
  AGENT_SESSION_LOAD_REJECTED(false, "the agent answered `session/load` or `session/resume` with an error (e.g. unknown session)"),
  AGENT_CANNOT_LOAD_SESSIONS(false, "a resume token is stored but the agent declares neither `loadSession` nor `sessionCapabilities.resume`"),
  AGENT_SESSION_NEW_FAILED(false, "`session/new` failed (including authentication required)"),
  AGENT_LOST(false,
      "the launched agent was gone when the resume came to settle (its process exited, or its worker died); the session is restored with its token, never reported running"),

  // The runtime update (docs/runtime-updates.md).
  RUNTIME_UNKNOWN_AGENT(false, "the agent id is not a built-in agent; nothing ran"),
  RUNTIME_UPDATE_FAILED(false, "the update command failed (the first failure triggers the repair; the second is terminal)"),
  RUNTIME_CACHE_REPAIR_FAILED(false, "the targeted `_npx` cache repair refused or failed"),
  RUNTIME_CACHE_REPAIR_REFUSED(false,
      "the repair activity refused an unsafe target, nothing deleted; the workflow then fails with `RUNTIME_CACHE_REPAIR_FAILED`"),
  RUNTIME_PROBE_FAILED(false, "the ACP capability probe failed"),

  // Temporal's own: a step timed out (named ACTIVITY_TIMEOUT_<Temporal's timeout type>) or the run was cancelled.
  ACTIVITY_TIMEOUT_START_TO_CLOSE(true, "a step outlasted its start-to-close timeout"),
  ACTIVITY_TIMEOUT_HEARTBEAT(true, "a step stopped heartbeating (e.g. the worker died or stalled during the launch)"),
  ACTIVITY_TIMEOUT_SCHEDULE_TO_CLOSE(false, "a step's retries outlasted its schedule-to-close timeout"),
  ACTIVITY_TIMEOUT_SCHEDULE_TO_START(false, "a step waited for a worker longer than its schedule-to-start timeout (the launch's is reported as `AGENT_HOST_UNAVAILABLE`; a stop on a host falls back to the shared queue)"),
  CANCELLED(false, "the resume was cancelled: it compensated and ends with a `CanceledFailure`; the name appears in the error"
      + " message and metrics (a cancel that arrived once the settle completed undoes nothing: see \"Stopping a resume\")");

  private static final String TIMEOUT_PREFIX = "ACTIVITY_TIMEOUT_";

  private final boolean retryable;
  private final String meaning;

  FailureType(boolean retryable, String meaning) {
    this.retryable = retryable;
    this.meaning = meaning;
  }

  /** The stable name: the {@code ApplicationFailure} type. */
  public String type() {
    return name();
  }

  /** Whether an activity that fails with this type is attempted again under its step's retry policy. */
  public boolean retryable() {
    return retryable;
  }

  /** One line on what it means (markdown, as in docs/contract.md). */
  public String meaning() {
    return meaning;
  }

  /**
   * An expected (benign) failure of this type, non-retryable unless the type is retryable. A fault
   * of a retryable type that deserves its stack trace is raised with {@code
   * ApplicationFailure.newFailure(message, type())} instead.
   */
  public ApplicationFailure failure(String message, Object... details) {
    return retryable
        ? ExpectedFailures.retryable(message, type(), details)
        : ExpectedFailures.nonRetryable(message, type(), details);
  }

  /** Whether {@code failure} is an {@code ApplicationFailure} of this type. */
  public boolean is(Throwable failure) {
    return failure instanceof ApplicationFailure application && type().equals(application.getType());
  }

  /**
   * The type name of an activity that timed out with Temporal's {@code timeoutType}: {@code
   * ACTIVITY_TIMEOUT_<its name>}, one of the entries above for each timeout Temporal reports.
   */
  public static String ofTimeout(TimeoutType timeoutType) {
    return TIMEOUT_PREFIX + timeoutType.name().replace("TIMEOUT_TYPE_", "");
  }

  /** The catalogue's type of this name; empty for a fault's class name or any other string. */
  public static Optional<FailureType> of(String type) {
    return Arrays.stream(values()).filter(t -> t.name().equals(type)).findFirst();
  }
}
