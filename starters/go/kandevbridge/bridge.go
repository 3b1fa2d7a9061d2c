// Package kandevbridge is what Kandev's backend calls instead of resuming a session in its own
// process: each of Kandev's resume entry points starts, or attaches to, the session's one
// ResumeSessionWorkflow and waits for it (Bridge.Resume), Kandev's boot reconcile leaves a session
// held by a running resume alone (Bridge.HeldByResume), and an in-process relay publishes our
// outbox of Kandev's bus events on Kandev's own bus (Relay). It has no Kandev code: Kandev's side
// adapts its types to the small interfaces here (docs/kandev.md "The Kandev bridge").
package kandevbridge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/enums/v1"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

// Entry names the Kandev entry point that asks for an agent. It decides the mode, what happens when
// a resume of the other mode already runs, and how long Kandev waits before it answers.
type Entry string

const (
	// EntryResume is the UI's explicit Resume: session.recover "resume" (or "runtime_retry" of a
	// resume attempt). The user asked for this mode: a running Start fresh is reported to them
	// (ActionConflict), not joined.
	EntryResume Entry = "resume"
	// EntryStartFresh is the UI's Start fresh: session.recover "fresh_start", task.launch.recover.
	EntryStartFresh Entry = "start-fresh"
	// EntryOpen is session.launch intent "resume": the web UI's auto-resume when a task page opens
	// (use-session-resumption) and its Resume button send the same request, which Kandev cannot
	// tell apart. Any running resume of the session is joined, whatever its mode.
	EntryOpen Entry = "open"
	// EntryPrompt is a prompt (message.add, a workflow step, MCP, a plugin, a queued message) to a
	// session with no live agent: Kandev's attemptColdResume. Any running resume is joined, and
	// Kandev waits for its end: the prompt needs the agent.
	EntryPrompt Entry = "prompt"
	// EntryBoot is Kandev's boot recovery: a session its reconcile found held by a running resume
	// (see HeldByResume) is left alone and that resume followed (in the background) to its end. It
	// only attaches: it never starts a resume (Kandev's own agents are brought back lazily, by the
	// next prompt or the page's auto-resume).
	EntryBoot Entry = "boot"
)

// UIAnswerWithin is how long an entry point the web UI waits on answers at most: the UI gives a
// resume 30 s (session-launch-service.ts) and accepts a STARTING answer, so Kandev answers STARTING
// after 25 s and lets the workflow go on (our launch may wait 60 s for its host).
const UIAnswerWithin = 25 * time.Second

// policy is what an entry point does.
type policy struct {
	mode recovery.ResumeMode
	// joinAny: a running resume of the other mode is joined instead of refused.
	joinAny bool
	// attachOnly: follow the latest run, start none.
	attachOnly bool
	// answerWithin: how long Resume waits before it answers ActionAnswerStarting; 0: until the end.
	answerWithin time.Duration
	reason       string
}

func policyOf(entry Entry) (policy, error) {
	switch entry {
	case EntryResume:
		return policy{mode: recovery.ModeResume, answerWithin: UIAnswerWithin, reason: "user"}, nil
	case EntryStartFresh:
		return policy{mode: recovery.ModeStartFresh, answerWithin: UIAnswerWithin, reason: "user"}, nil
	case EntryOpen:
		return policy{mode: recovery.ModeResume, joinAny: true, answerWithin: UIAnswerWithin, reason: "auto-resume-on-open"}, nil
	case EntryPrompt:
		return policy{mode: recovery.ModeResume, joinAny: true, reason: "prompt"}, nil
	case EntryBoot:
		return policy{attachOnly: true}, nil
	}
	return policy{}, fmt.Errorf("entry point %q is not one of resume, start-fresh, open, prompt, boot", entry)
}

// Request is one entry point's call.
type Request struct {
	Entry     Entry
	SessionID string
	// RequestedBy is who asked ("user:<id>", "kandev-mcp", ...), for the operator; optional.
	RequestedBy string
}

// Bridge starts and follows resumes for Kandev's entry points.
type Bridge struct {
	starter *recovery.Starter
	// answerWithin overrides the UI entry points' wait (tests); 0: UIAnswerWithin.
	answerWithin time.Duration
}

// New is a Bridge starting resumes with starter (its client and the workers' task queue).
func New(starter *recovery.Starter) *Bridge {
	return &Bridge{starter: starter}
}

// WithAnswerWithin returns a copy of b whose UI entry points answer STARTING after d instead of
// UIAnswerWithin (d > 0).
func (b *Bridge) WithAnswerWithin(d time.Duration) *Bridge {
	copied := *b
	copied.answerWithin = d
	return &copied
}

// Resume starts the session's resume, or attaches to the one running, and waits for it as the entry
// point needs; the Decision says what Kandev does next. Resume never resumes in Kandev's process,
// and an error is only a request that cannot be made (unknown entry point, blank session id): every
// other outcome, Temporal unreachable included, is a Decision.
func (b *Bridge) Resume(ctx context.Context, req Request) (Decision, error) {
	p, err := policyOf(req.Entry)
	if err != nil {
		return Decision{}, err
	}
	if req.SessionID == "" {
		return Decision{}, errors.New("session id is blank")
	}
	if p.answerWithin > 0 && b.answerWithin > 0 {
		p.answerWithin = b.answerWithin
	}
	if p.attachOnly {
		return b.await(ctx, b.starter.AttachResume(req.SessionID, ""), 0), nil
	}
	resume, err := b.starter.StartResume(ctx, recovery.ResumeRequest{
		SessionID: req.SessionID, Mode: p.mode, Reason: p.reason, RequestedBy: req.RequestedBy})
	var conflict *recovery.ConflictError
	switch {
	case errors.As(err, &conflict) && p.joinAny:
		resume = b.starter.AttachResume(req.SessionID, conflict.RunID)
	case errors.As(err, &conflict):
		return conflictDecision(conflict), nil
	case err != nil:
		return unavailable(ctx, err), nil
	}
	return b.await(ctx, resume, p.answerWithin), nil
}

// await waits for the run, at most answerWithin when it is not 0.
func (b *Bridge) await(ctx context.Context, resume *recovery.Resume, answerWithin time.Duration) Decision {
	waitCtx := ctx
	if answerWithin > 0 {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeout(ctx, answerWithin)
		defer cancel()
	}
	result, err := resume.Await(waitCtx)
	// The wait's deadline may end the long poll a little before waitCtx itself ends: whether the
	// run goes on is asked, not inferred from the error.
	if err != nil && answerWithin > 0 && ctx.Err() == nil && b.stillRunning(ctx, resume) {
		return Decision{Action: ActionAnswerStarting, SessionState: "STARTING", RunID: resume.RunID,
			Message: "the resume goes on; its state changes arrive on the bus"}
	}
	decision := decide(ctx, result, err)
	decision.RunID = resume.RunID
	return decision
}

func (b *Bridge) stillRunning(ctx context.Context, resume *recovery.Resume) bool {
	described, err := b.starter.Client.DescribeWorkflowExecution(ctx, resume.WorkflowID, resume.RunID)
	return err == nil && described.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// HeldByResume tells Kandev's boot reconcile whether a resume holds the session: its
// ResumeSessionWorkflow is running. Such a session is the workflow's (it may be STARTING, its agent
// in initialize): the reconcile must leave it, its row and its task alone. An error means Temporal
// could not say; the caller should treat the session as held (reconciling a held session fails
// the resume and marks the task interrupted; skipping a free one only delays a repair).
func (b *Bridge) HeldByResume(ctx context.Context, sessionID string) (bool, error) {
	return HeldByResume(ctx, b.starter, sessionID)
}
