// Package kandevlaunch is the Kandev executor's adapter of the resume's launch step: a Temporal
// activity worker that serves the activities "LaunchAgent" and "StopAgent" on an executor host's
// queues (docs/contract.md, "LaunchAgent contract") by calling an Executor that Kandev's backend (or a
// stand-in) provides. The Java worker keeps the rest of the resume: lock, STARTING, lease, snapshot,
// compensation, settle.
package kandevlaunch

import (
	"context"
	"fmt"
)

// The activity type names, as the Java workflow schedules them.
const (
	LaunchActivityType = "LaunchAgent"
	StopActivityType   = "StopAgent"
)

// The ACP requests a launch reattaches or creates the provider session with (LaunchOutcome.SessionMethod).
const (
	SessionLoad   = "session/load"
	SessionResume = "session/resume"
	SessionNew    = "session/new"
)

// The failure types a launch may fail with (docs/contract.md "Failure types"; the Java
// AgentFailureClass, plus AGENT_HOST_UNAVAILABLE for a session bound to another host). None of them
// touches the stored resume token.
const (
	AgentHostUnavailable        = "AGENT_HOST_UNAVAILABLE"
	AgentProcessStartFailed     = "AGENT_PROCESS_START_FAILED"
	AgentExitedBeforeInitialize = "AGENT_EXITED_BEFORE_INITIALIZE"
	AgentInitializeFailed       = "AGENT_INITIALIZE_FAILED"
	AgentTransportClosed        = "AGENT_TRANSPORT_CLOSED"
	AgentSessionLoadRejected    = "AGENT_SESSION_LOAD_REJECTED"
	AgentCannotLoadSessions     = "AGENT_CANNOT_LOAD_SESSIONS"
	AgentSessionNewFailed       = "AGENT_SESSION_NEW_FAILED"
)

// LaunchFailureTypes are the types a LaunchAgent failure carries; any other error becomes
// AGENT_PROCESS_START_FAILED.
var LaunchFailureTypes = []string{
	AgentHostUnavailable, AgentProcessStartFailed, AgentExitedBeforeInitialize, AgentInitializeFailed,
	AgentTransportClosed, AgentSessionLoadRejected, AgentCannotLoadSessions, AgentSessionNewFailed,
}

// LaunchRequest: the LaunchAgent activity's arguments (the Java contract passes them positionally:
// sessionId string, leaseIds []string, fence number).
type LaunchRequest struct {
	SessionID string
	// LeaseIDs are the credential leases the resume issued for this attempt (ids only, never a secret).
	LeaseIDs []string
	// Fence is the fencing token of the resume lock the launch runs under.
	Fence int64
}

// LaunchOutcome mirrors the Java record dev.kandev.recovery.workflows.resume.LaunchOutcome (JSON camelCase).
type LaunchOutcome struct {
	ProviderSessionID string `json:"providerSessionId"`
	Loaded            bool   `json:"loaded"`
	PID               int64  `json:"pid"`
	AgentName         string `json:"agentName"`
	SessionMethod     string `json:"sessionMethod"` // session/load, session/resume or session/new
}

// Executor is what Kandev's executor (or a stand-in) provides.
type Executor interface {
	// Launch brings back the session's agent: native resume / session/load of the stored token, or
	// session/new only when the session has no token (Start fresh cleared it). A rejected load is an
	// error of type AGENT_SESSION_LOAD_REJECTED, never a silent session/new. ctx is cancelled when the
	// resume is cancelled or the activity's heartbeat times out; the worker then calls Stop.
	Launch(ctx context.Context, req LaunchRequest) (LaunchOutcome, error)
	// Stop stops the session's agent if this executor runs one. Idempotent.
	Stop(ctx context.Context, sessionID string) error
}

// Failure names the contract failure type of a launch error (docs/contract.md "Failure types").
type Failure struct {
	Type    string
	Message string
}

func (f *Failure) Error() string { return f.Type + ": " + f.Message }

// Failf is a Failure of type typ with a formatted message.
func Failf(typ, format string, args ...any) *Failure {
	return &Failure{Type: typ, Message: fmt.Sprintf(format, args...)}
}

// validate says what is wrong with an outcome the executor returned, or "".
func (o LaunchOutcome) validate() string {
	if o.ProviderSessionID == "" {
		return "it names no provider session"
	}
	switch o.SessionMethod {
	case SessionLoad, SessionResume:
		if !o.Loaded {
			return "sessionMethod " + o.SessionMethod + " with loaded false"
		}
	case SessionNew:
		if o.Loaded {
			return "sessionMethod session/new with loaded true"
		}
	default:
		return fmt.Sprintf("sessionMethod %q is not session/load, session/resume or session/new", o.SessionMethod)
	}
	return ""
}
