package kandevbridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

// Action is what Kandev does after Resume. Whatever it is, Kandev writes no session or task state
// of its own for it: the workflow owns the session while it runs and leaves it settled or restored.
type Action string

const (
	// ActionUseAgent: the resume ended RESUMED or STARTED_FRESH. The agent runs under Kandev's
	// executor (it is in Kandev's execution registry) and the session is WAITING_FOR_INPUT: answer
	// the UI with the session, or send the prompt that asked for it.
	ActionUseAgent Action = "use-agent"
	// ActionAnswerStarting: the resume still runs after the UI's budget (UIAnswerWithin). Answer
	// STARTING, which the UI accepts; the settle or the restore arrives as bus events.
	ActionAnswerStarting Action = "answer-starting"
	// ActionAlreadyRunning: AGENT_ALREADY_RUNNING, nothing changed: the session is STARTING or its
	// agent runs. Use that agent (a prompt goes to it) if Kandev's registry has it; launch none.
	ActionAlreadyRunning Action = "already-running"
	// ActionRetry: another transition of the session won (RESUME_LOCK_HELD, RESUME_LOCK_LOST,
	// SESSION_STATE_SUPERSEDED). Re-read the session and ask again once, or tell the user to.
	ActionRetry Action = "retry"
	// ActionOfferRecovery: the resume failed and restored the session (SessionState, token kept).
	// Show Message and offer RecoveryActions (Resume, Start fresh); never start a session/new on
	// the user's behalf: a rejected load is AGENT_SESSION_LOAD_REJECTED here, not a new session.
	ActionOfferRecovery Action = "offer-recovery"
	// ActionNotFound: SESSION_NOT_FOUND; nothing changed.
	ActionNotFound Action = "not-found"
	// ActionNotResumable: SESSION_NOT_RESUMABLE (COMPLETED); offer a new session instead.
	ActionNotResumable Action = "not-resumable"
	// ActionBadRequest: INVALID_REQUEST; nothing was done.
	ActionBadRequest Action = "bad-request"
	// ActionConflict: a resume of the other mode runs for the session (the UI asked Resume while a
	// Start fresh runs, or the reverse). Tell the user; it was not started.
	ActionConflict Action = "conflict"
	// ActionCancelled: the resume was cancelled; it compensated, the session is back in its prior state.
	ActionCancelled Action = "cancelled"
	// ActionUnavailable: the resume could not be started or followed (Temporal unreachable, the
	// caller's context ended). Report the error; do not resume in Kandev's process instead (that is
	// the second agent this bridge exists to prevent). A run that did start goes on.
	ActionUnavailable Action = "unavailable"
)

// Decision is the outcome of Resume for Kandev.
type Decision struct {
	Action Action
	// Outcome is RESUMED or STARTED_FRESH for ActionUseAgent, else "".
	Outcome string
	// SessionState is the session's state as the resume left it ("" when unknown).
	SessionState string
	// ProviderSessionID and Loaded are the resume's (ActionUseAgent). ProviderSessionID is "" for a
	// resume a cancel reached once it had settled (its result was dropped: recovery.ResumeResult's
	// CancelledLate); the session's stored one is it.
	ProviderSessionID string
	Loaded            bool
	// FailureType and Step name a failure (docs/contract.md "Failure types").
	FailureType string
	Step        string
	Message     string
	// RecoveryActions is what the user may do next (RESUME, START_FRESH); empty when nothing changed.
	RecoveryActions []recovery.ResumeMode
	// RunID is the run that was followed ("" when none was).
	RunID string
}

// decide maps a resume's end (result or error of Await) to a Decision.
func decide(ctx context.Context, result recovery.ResumeResult, err error) Decision {
	if err == nil {
		return Decision{Action: ActionUseAgent, Outcome: result.Outcome, SessionState: result.FinalState,
			ProviderSessionID: result.ProviderSessionID, Loaded: result.Loaded}
	}
	var failed *recovery.ResumeFailedError
	if errors.As(err, &failed) {
		return failureDecision(failed)
	}
	var cancelled *temporal.CanceledError
	if errors.As(err, &cancelled) {
		return Decision{Action: ActionCancelled, FailureType: "CANCELLED", Message: err.Error()}
	}
	return unavailable(ctx, err)
}

// actionOf maps the failure types of docs/contract.md; any other (a new launch failure, an
// unexpected fault named by its Java class) restored the session like a launch failure does.
var actionOf = map[string]Action{
	"INVALID_REQUEST":          ActionBadRequest,
	"SESSION_NOT_FOUND":        ActionNotFound,
	"SESSION_NOT_RESUMABLE":    ActionNotResumable,
	"AGENT_ALREADY_RUNNING":    ActionAlreadyRunning,
	"RESUME_LOCK_HELD":         ActionRetry,
	"RESUME_LOCK_LOST":         ActionRetry,
	"SESSION_STATE_SUPERSEDED": ActionRetry,
}

func failureDecision(failed *recovery.ResumeFailedError) Decision {
	action, known := actionOf[failed.Type]
	if !known {
		action = ActionOfferRecovery
	}
	d := Decision{Action: action, FailureType: failed.Type, Message: failed.Message}
	if f := failed.Failure; f != nil {
		d.Step = f.Step
		d.SessionState = f.SessionState
		d.RecoveryActions = f.RecoveryActions
		if f.Message != "" {
			d.Message = f.Message
		}
	}
	return d
}

func conflictDecision(c *recovery.ConflictError) Decision {
	return Decision{Action: ActionConflict, RunID: c.RunID, Message: fmt.Sprintf(
		"a %s of this session is running; %s was not started", humanMode(c.Running), humanMode(c.Requested))}
}

func unavailable(ctx context.Context, err error) Decision {
	message := "the resume service is unavailable: " + err.Error()
	if ctx.Err() != nil {
		message = "stopped waiting for the resume (" + ctx.Err().Error() + "); it goes on"
	}
	return Decision{Action: ActionUnavailable, Message: message}
}

func humanMode(m recovery.ResumeMode) string {
	if m == recovery.ModeStartFresh {
		return "Start fresh"
	}
	return strings.ToLower(string(m)[:1]) + strings.ToLower(string(m)[1:])
}
