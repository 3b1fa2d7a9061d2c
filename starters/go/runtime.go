package recovery

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// RuntimeUpdate is a started (or joined) run of RuntimeUpdateWorkflow.
type RuntimeUpdate struct {
	client     client.Client
	WorkflowID string
	// RunID is also the job id of the runtime_update_jobs row.
	RunID string
}

// RuntimeUpdateFailedError is an update that ended with an ApplicationError: Type is its failure
// type and Result the FAILED job record (nil for INVALID_REQUEST, which has no details).
type RuntimeUpdateFailedError struct {
	Type    string
	Message string
	Result  *RuntimeUpdateResult
	cause   error
}

func (e *RuntimeUpdateFailedError) Error() string {
	return "runtime update failed (" + e.Type + "): " + e.Message
}

func (e *RuntimeUpdateFailedError) Unwrap() error { return e.cause }

// StartRuntimeUpdate starts the update of req.AgentID, or joins the one already running for it
// (conflict policy USE_EXISTING, like Kandev's "enqueue returns the existing job"). After it ended,
// a start begins a new job.
func (s *Starter) StartRuntimeUpdate(ctx context.Context, req RuntimeUpdateRequest) (*RuntimeUpdate, error) {
	if err := checkID("agentId", req.AgentID); err != nil {
		return nil, err
	}
	run, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       RuntimeUpdateWorkflowID(req.AgentID),
		TaskQueue:                s.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowExecutionTimeout: 30 * time.Minute,
		StaticSummary:            fmt.Sprintf("Update the managed npm runtime of %s (requested by %s)", req.AgentID, req.RequestedBy),
	}, RuntimeUpdateWorkflowType, req)
	if err != nil {
		return nil, err
	}
	return &RuntimeUpdate{client: s.Client, WorkflowID: run.GetID(), RunID: run.GetRunID()}, nil
}

// Await waits for the outcome until ctx ends. A failed job returns its FAILED record in
// *RuntimeUpdateFailedError.
func (u *RuntimeUpdate) Await(ctx context.Context) (RuntimeUpdateResult, error) {
	result, failed, details, err := awaitOutcome[RuntimeUpdateResult, RuntimeUpdateResult](ctx, u.client, u.WorkflowID, u.RunID,
		"runtime update")
	if failed == nil {
		return result, err
	}
	return result, &RuntimeUpdateFailedError{Type: failed.Type(), Message: failed.Message(), Result: details, cause: err}
}

// Progress runs the progress query: the job so far.
func (u *RuntimeUpdate) Progress(ctx context.Context) (RuntimeUpdateProgress, error) {
	return queryProgress[RuntimeUpdateProgress](ctx, u.client, u.WorkflowID, u.RunID)
}
