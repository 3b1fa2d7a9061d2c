package recovery

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
)

// Starter starts kandev-recovery's workflows on a Temporal client.
type Starter struct {
	Client client.Client
	// TaskQueue is the worker's task queue; TaskQueue (the constant) unless the worker sets another.
	TaskQueue string
}

// NewStarter returns a Starter for the default task queue.
func NewStarter(c client.Client) *Starter {
	return &Starter{Client: c, TaskQueue: TaskQueue}
}

// Resume is a started (or attached) run of ResumeSessionWorkflow.
type Resume struct {
	client     client.Client
	WorkflowID string
	RunID      string
	// TraceID is the trace of the StartResume span (hex), "" when tracing is off.
	TraceID string
}

// ConflictError refuses a request whose session already has a running resume of the other mode.
type ConflictError struct {
	SessionID string
	Running   ResumeMode
	Requested ResumeMode
	RunID     string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("session %s is already being resumed with mode %s (run %s); %s was not started",
		e.SessionID, e.Running, e.RunID, e.Requested)
}

// ResumeFailedError is a resume that ended with an ApplicationError: Type is its failure type and
// Failure its ResumeFailure details (nil for INVALID_REQUEST, which has none).
type ResumeFailedError struct {
	Type    string
	Message string
	Failure *ResumeFailure
	cause   error
}

func (e *ResumeFailedError) Error() string { return "resume failed (" + e.Type + "): " + e.Message }

func (e *ResumeFailedError) Unwrap() error { return e.cause }

// StartResume starts the resume of req.SessionID, or attaches to the one already running for that
// session (conflict policy USE_EXISTING: Kandev's auto-resume may fire several times). A running
// resume of the other mode is refused with *ConflictError. After a resume ended, a new one starts.
func (s *Starter) StartResume(ctx context.Context, req ResumeRequest) (*Resume, error) {
	if err := checkID("sessionId", req.SessionID); err != nil {
		return nil, err
	}
	if req.Mode != ModeResume && req.Mode != ModeStartFresh {
		return nil, fmt.Errorf("mode %q is not one of %s, %s", req.Mode, ModeResume, ModeStartFresh)
	}
	if req.Reason == "" {
		req.Reason = "user"
	}
	ctx, span := startResumeSpan(ctx, req)
	defer span.End()
	run, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       ResumeWorkflowID(req.SessionID),
		TaskQueue:                s.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		Memo:                     map[string]any{"mode": string(req.Mode), "reason": req.Reason, "requestedBy": req.RequestedBy},
		StaticSummary:            resumeSummary(req),
	}, ResumeWorkflowType, req)
	if err != nil {
		return nil, err
	}
	resume := s.AttachResume(req.SessionID, run.GetRunID())
	resume.TraceID = traceIDOf(span)
	running, err := resume.mode(ctx)
	if err != nil {
		return nil, err
	}
	if running != req.Mode {
		return nil, &ConflictError{SessionID: req.SessionID, Running: running, Requested: req.Mode, RunID: resume.RunID}
	}
	return resume, nil
}

// AttachResume is the resume of sessionID with that run id ("" for the latest run).
func (s *Starter) AttachResume(sessionID, runID string) *Resume {
	return &Resume{client: s.Client, WorkflowID: ResumeWorkflowID(sessionID), RunID: runID}
}

// Await waits for the outcome until ctx ends. A resume that failed returns *ResumeFailedError; a
// cancelled one an error that wraps *temporal.CanceledError, unless the cancel arrived once its
// settle completed: the session resumed all the same (docs/contract.md, "Stopping a resume"), and
// Await returns that outcome with CancelledLate set (the run's status is CANCELED).
func (r *Resume) Await(ctx context.Context) (ResumeResult, error) {
	result, failed, details, err := awaitOutcome[ResumeResult, ResumeFailure](ctx, r.client, r.WorkflowID, r.RunID, "resume")
	var canceled *temporal.CanceledError
	if errors.As(err, &canceled) {
		return r.outcomeDespiteCancel(ctx, err)
	}
	if failed == nil {
		return result, err
	}
	return result, &ResumeFailedError{Type: failed.Type(), Message: failed.Message(), Failure: details, cause: err}
}

// awaitOutcome waits for a workflow's result until ctx ends. When the workflow failed with an
// application error it returns that error too, with its details decoded (nil when it has none).
func awaitOutcome[R, D any](ctx context.Context, c client.Client, workflowID, runID, what string) (R, *temporal.ApplicationError, *D, error) {
	var result R
	err := c.GetWorkflow(ctx, workflowID, runID).Get(ctx, &result)
	if err == nil {
		return result, nil, nil, nil
	}
	var failed *temporal.ApplicationError
	if !errors.As(err, &failed) {
		return result, nil, nil, err
	}
	if !failed.HasDetails() {
		return result, failed, nil, err
	}
	var details D
	if detailsErr := failed.Details(&details); detailsErr != nil {
		return result, nil, nil, fmt.Errorf("%s failed (%s) with unreadable details: %w", what, failed.Type(), detailsErr)
	}
	return result, failed, &details, err
}

// Progress runs the progress query: the current step and what happened so far.
func (r *Resume) Progress(ctx context.Context) (ResumeProgress, error) {
	return queryProgress[ResumeProgress](ctx, r.client, r.WorkflowID, r.RunID)
}

// queryProgress runs a workflow's progress query and decodes its answer.
func queryProgress[P any](ctx context.Context, c client.Client, workflowID, runID string) (P, error) {
	var progress P
	value, err := c.QueryWorkflow(ctx, workflowID, runID, ProgressQuery)
	if err != nil {
		return progress, err
	}
	return progress, value.Get(&progress)
}

// Cancel asks the resume to stop: it compensates at once and ends cancelled, the session back in its
// prior state, unless its settle completed first (Await then says it resumed). (Terminating instead
// skips the compensations.)
func (r *Resume) Cancel(ctx context.Context) error {
	return r.client.CancelWorkflow(ctx, r.WorkflowID, r.RunID)
}

// outcomeDespiteCancel reads a CANCELED run's KandevOutcome: the resume's result when it resumed
// before the cancel arrived, else the cancellation.
func (r *Resume) outcomeDespiteCancel(ctx context.Context, cancelled error) (ResumeResult, error) {
	described, err := r.client.DescribeWorkflowExecution(ctx, r.WorkflowID, r.RunID)
	if err != nil {
		return ResumeResult{}, fmt.Errorf("%w (and its outcome could not be read: %v)", cancelled, err)
	}
	info := described.GetWorkflowExecutionInfo()
	fields := info.GetSearchAttributes().GetIndexedFields()
	result, resumed := resumedDespiteCancel(info.GetStatus(), keyword(fields[SearchAttributeSessionID]),
		keyword(fields[SearchAttributeOutcome]))
	if !resumed {
		return ResumeResult{}, cancelled
	}
	return result, nil
}

// resumedDespiteCancel is the rule of a late cancel: a CANCELED run whose KandevOutcome is RESUMED or
// STARTED_FRESH settled before the cancel arrived, so the session is WAITING_FOR_INPUT with its agent;
// the run's result itself (the provider session id) was discarded by the SDK. Any other CANCELED run
// compensated.
func resumedDespiteCancel(status enumspb.WorkflowExecutionStatus, sessionID, outcome string) (ResumeResult, bool) {
	if status != enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED || (outcome != OutcomeResumed && outcome != OutcomeStartedFresh) {
		return ResumeResult{}, false
	}
	return ResumeResult{SessionID: sessionID, Outcome: outcome, FinalState: "WAITING_FOR_INPUT",
		Loaded: outcome == OutcomeResumed, CancelledLate: true}, true
}

// mode is the mode the run was started with, from the memo every starter sets.
func (r *Resume) mode(ctx context.Context) (ResumeMode, error) {
	described, err := r.client.DescribeWorkflowExecution(ctx, r.WorkflowID, r.RunID)
	if err != nil {
		return "", err
	}
	payload, ok := described.GetWorkflowExecutionInfo().GetMemo().GetFields()["mode"]
	if !ok {
		return "", fmt.Errorf("resume %s/%s has no mode in its memo", r.WorkflowID, r.RunID)
	}
	var mode string
	if err := converter.GetDefaultDataConverter().FromPayload(payload, &mode); err != nil {
		return "", err
	}
	return ResumeMode(mode), nil
}

func resumeSummary(req ResumeRequest) string {
	action := "Resume"
	if req.Mode == ModeStartFresh {
		action = "Start fresh"
	}
	by := ""
	if req.RequestedBy != "" {
		by = ", " + req.RequestedBy
	}
	return fmt.Sprintf("%s session %s (%s%s)", action, req.SessionID, req.Reason, by)
}

// checkID refuses an id that cannot make a workflow id; the workflows check it again.
func checkID(field, id string) error {
	if strings.TrimSpace(id) == "" {
		return fmt.Errorf("%s is missing or blank", field)
	}
	if len(id) > MaxIDBytes {
		return fmt.Errorf("%s is %d bytes long; at most %d (UTF-8) are allowed", field, len(id), MaxIDBytes)
	}
	if strings.IndexFunc(id, unicode.IsControl) >= 0 {
		return fmt.Errorf("%s has a control character", field)
	}
	return nil
}
