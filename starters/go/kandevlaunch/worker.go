package kandevlaunch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
)

// The contract's defaults (docs/contract.md "LaunchAgent contract").
const (
	// DefaultMaxConcurrentLaunches is the Java worker's KANDEV_MAX_CONCURRENT_LAUNCHES default.
	DefaultMaxConcurrentLaunches = 4
	// DefaultHeartbeatInterval is how often a launch under way records a heartbeat (the Java
	// LaunchHeartbeat.CALL_EVERY); the SDK sends the latest one to the server when due.
	DefaultHeartbeatInterval = time.Second
	// DefaultStopTimeout bounds the Stop the worker calls after a cancelled or abandoned launch.
	DefaultStopTimeout = 30 * time.Second
)

// Options; zero values mean the contract's defaults.
type Options struct {
	// MaxConcurrentLaunches: launches this worker runs at once; the rest wait in the launch queue.
	MaxConcurrentLaunches int
	// HeartbeatInterval: how often a launch under way records a heartbeat; it must stay well below
	// the Java worker's launch heartbeat timeout (KANDEV_LAUNCH_HEARTBEAT_TIMEOUT_SECONDS, 60 s).
	HeartbeatInterval time.Duration
	// StopTimeout bounds the Executor.Stop after a cancelled launch.
	StopTimeout time.Duration
	// Identity of the worker in Temporal (pollers, history); empty: the SDK's default.
	Identity string
	// Logger; nil: the client's.
	Logger log.Logger
}

// Worker polls one executor host's queues: <queue>@<host>/launch (LaunchAgent) and <queue>@<host>
// (StopAgent).
type Worker struct {
	launch worker.Worker
	stop   worker.Worker
}

// HostQueue is <queue>@<host>, the Java RecoveryTaskQueue.ofHost.
func HostQueue(queue, host string) string { return queue + "@" + host }

// LaunchQueue is <queue>@<host>/launch, the Java RecoveryTaskQueue.launchesOf.
func LaunchQueue(queue, host string) string { return HostQueue(queue, host) + "/launch" }

// NewWorker registers the activities "LaunchAgent" and "StopAgent" (the Java activity type names) on
// the host's queues <queue>@<host>/launch and <queue>@<host>; Start/Stop like a Temporal worker. No
// Java worker may poll these queues (KANDEV_LAUNCH_ADAPTER=kandev-executor on the host's Java workers).
func NewWorker(c client.Client, queue, host string, ex Executor, opts Options) (*Worker, error) {
	switch {
	case c == nil:
		return nil, errors.New("kandevlaunch: a Temporal client is required")
	case ex == nil:
		return nil, errors.New("kandevlaunch: an Executor is required")
	case strings.TrimSpace(queue) == "" || strings.ContainsAny(queue, " \t\r\n"):
		return nil, fmt.Errorf("kandevlaunch: queue %q must be a non-empty name without white space (the workers' KANDEV_TASK_QUEUE)", queue)
	case strings.TrimSpace(host) == "" || strings.ContainsAny(host, " \t\r\n"):
		return nil, fmt.Errorf("kandevlaunch: host %q must be a non-empty name without white space (the sessions' executor host)", host)
	case opts.MaxConcurrentLaunches < 0 || opts.HeartbeatInterval < 0 || opts.StopTimeout < 0:
		return nil, errors.New("kandevlaunch: Options must not be negative")
	}
	a := newActivities(ex, opts)
	base := worker.Options{Identity: opts.Identity, DisableWorkflowWorker: true}
	launchOpts := base
	launchOpts.MaxConcurrentActivityExecutionSize = a.maxLaunches
	launch := worker.New(c, LaunchQueue(queue, host), launchOpts)
	launch.RegisterActivityWithOptions(a.LaunchAgent, activity.RegisterOptions{Name: LaunchActivityType})
	stop := worker.New(c, HostQueue(queue, host), base)
	stop.RegisterActivityWithOptions(a.StopAgent, activity.RegisterOptions{Name: StopActivityType})
	return &Worker{launch: launch, stop: stop}, nil
}

// Start starts polling both queues (the stop queue first, so a compensation finds a poller).
func (w *Worker) Start() error {
	if err := w.stop.Start(); err != nil {
		return fmt.Errorf("kandevlaunch: start the stop worker: %w", err)
	}
	if err := w.launch.Start(); err != nil {
		w.stop.Stop()
		return fmt.Errorf("kandevlaunch: start the launch worker: %w", err)
	}
	return nil
}

// Stop stops polling; launches under way are cancelled after the SDK's stop timeout.
func (w *Worker) Stop() {
	w.launch.Stop()
	w.stop.Stop()
}

// activities are the two activity functions, over one Executor.
type activities struct {
	ex          Executor
	maxLaunches int
	heartbeat   time.Duration
	stopTimeout time.Duration
	logger      log.Logger
}

func newActivities(ex Executor, opts Options) *activities {
	a := &activities{ex: ex, maxLaunches: opts.MaxConcurrentLaunches, heartbeat: opts.HeartbeatInterval,
		stopTimeout: opts.StopTimeout, logger: opts.Logger}
	if a.maxLaunches == 0 {
		a.maxLaunches = DefaultMaxConcurrentLaunches
	}
	if a.heartbeat == 0 {
		a.heartbeat = DefaultHeartbeatInterval
	}
	if a.stopTimeout == 0 {
		a.stopTimeout = DefaultStopTimeout
	}
	return a
}

func (a *activities) log(ctx context.Context) log.Logger {
	if a.logger != nil {
		return a.logger
	}
	return activity.GetLogger(ctx)
}

// LaunchAgent is the activity "LaunchAgent"(sessionId, leaseIds, fence).
func (a *activities) LaunchAgent(ctx context.Context, sessionID string, leaseIDs []string, fence int64) (LaunchOutcome, error) {
	req := LaunchRequest{SessionID: sessionID, LeaseIDs: leaseIDs, Fence: fence}
	if req.LeaseIDs == nil {
		req.LeaseIDs = []string{}
	}
	outcome, err := a.launch(ctx, req, func() { activity.RecordHeartbeat(ctx) })
	if err != nil && ctx.Err() == nil {
		a.log(ctx).Warn("launch failed", "SessionID", sessionID, "Error", err)
	}
	return outcome, err
}

type launchResult struct {
	outcome LaunchOutcome
	err     error
}

// launch runs the executor's Launch, recording a heartbeat every interval it is still under way (not
// at its start: most launches end sooner). When ctx ends (cancelled, or the heartbeat timed out) it
// still waits for Launch to return, so the compensation that follows never races a half-started
// agent, then stops what it may have started.
func (a *activities) launch(ctx context.Context, req LaunchRequest, heartbeat func()) (LaunchOutcome, error) {
	if req.SessionID == "" {
		return LaunchOutcome{}, temporal.NewNonRetryableApplicationError(
			"LaunchAgent needs a session id; nothing was launched", "INVALID_REQUEST", nil)
	}
	done := make(chan launchResult, 1)
	go func() {
		outcome, err := a.ex.Launch(ctx, req)
		done <- launchResult{outcome, err}
	}()
	ticker := time.NewTicker(a.heartbeat)
	defer ticker.Stop()
	for {
		select {
		case r := <-done:
			if ctx.Err() != nil {
				return LaunchOutcome{}, a.abandon(ctx, req.SessionID)
			}
			return a.result(ctx, req.SessionID, r)
		case <-ticker.C:
			heartbeat()
		case <-ctx.Done():
			<-done
			return LaunchOutcome{}, a.abandon(ctx, req.SessionID)
		}
	}
}

// abandon stops the agent of a launch nobody waits for any more and reports the cancellation.
func (a *activities) abandon(ctx context.Context, sessionID string) error {
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.stopTimeout)
	defer cancel()
	if err := a.ex.Stop(stopCtx, sessionID); err != nil {
		a.log(ctx).Error("could not stop the agent of a cancelled launch", "SessionID", sessionID, "Error", err)
	}
	return ctx.Err()
}

func (a *activities) result(ctx context.Context, sessionID string, r launchResult) (LaunchOutcome, error) {
	if r.err != nil {
		return LaunchOutcome{}, launchFailure(r.err)
	}
	if problem := r.outcome.validate(); problem != "" {
		a.abandon(context.WithoutCancel(ctx), sessionID)
		return LaunchOutcome{}, temporal.NewNonRetryableApplicationError(
			"the executor's launch outcome of session "+sessionID+" is invalid: "+problem+"; its agent was stopped",
			AgentProcessStartFailed, nil)
	}
	return r.outcome, nil
}

// launchFailure is the non-retryable ApplicationError of a failed launch: a *Failure keeps its type
// when the contract knows it for a launch, anything else is AGENT_PROCESS_START_FAILED.
func launchFailure(err error) error {
	var failure *Failure
	if errors.As(err, &failure) && slices.Contains(LaunchFailureTypes, failure.Type) {
		return temporal.NewNonRetryableApplicationError(failure.Message, failure.Type, nil)
	}
	if failure != nil {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s (the executor's type %q is not a launch failure type)", err.Error(), failure.Type),
			AgentProcessStartFailed, nil)
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), AgentProcessStartFailed, nil)
}

// StopAgent is the activity "StopAgent"(sessionId): the compensation. Idempotent; a failed stop is
// retried by the workflow's compensation policy.
func (a *activities) StopAgent(ctx context.Context, sessionID string) error {
	if err := a.ex.Stop(ctx, sessionID); err != nil {
		return fmt.Errorf("stop the agent of session %s: %w", sessionID, err)
	}
	return nil
}
