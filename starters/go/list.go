package recovery

import (
	"context"
	"fmt"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"
)

// Run is one run of a recovery workflow as Temporal's visibility store lists it.
type Run struct {
	WorkflowID string
	RunID      string
	// Status is RUNNING, COMPLETED, FAILED, CANCELED, TERMINATED, TIMED_OUT or CONTINUED_AS_NEW.
	Status string
	// The search attributes the workflow has set so far ("" if not yet).
	SessionID, TaskID, AgentID, Outcome string
	StartTime, CloseTime                time.Time
}

// ListResumes lists the resumes of a session, newest first. The visibility store lags a start or an
// end by up to a second or so.
func (s *Starter) ListResumes(ctx context.Context, sessionID string) ([]Run, error) {
	return s.list(ctx, ResumeWorkflowType, SearchAttributeSessionID, sessionID)
}

// ListRuntimeUpdates lists the runtime updates of an agent, newest first.
func (s *Starter) ListRuntimeUpdates(ctx context.Context, agentID string) ([]Run, error) {
	return s.list(ctx, RuntimeUpdateWorkflowType, SearchAttributeAgentID, agentID)
}

func (s *Starter) list(ctx context.Context, workflowType, attribute, value string) ([]Run, error) {
	if value == "" || strings.ContainsAny(value, `'"\`) {
		return nil, fmt.Errorf("%s %q cannot be listed: it is empty or has a quote or backslash", attribute, value)
	}
	query := fmt.Sprintf("WorkflowType = '%s' AND %s = '%s'", workflowType, attribute, value)
	var runs []Run
	var next []byte
	for {
		page, err := s.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: query, NextPageToken: next,
		})
		if err != nil {
			return nil, err
		}
		for _, info := range page.GetExecutions() {
			fields := info.GetSearchAttributes().GetIndexedFields()
			runs = append(runs, Run{
				WorkflowID: info.GetExecution().GetWorkflowId(),
				RunID:      info.GetExecution().GetRunId(),
				Status:     strings.TrimPrefix(enumspb.WorkflowExecutionStatus_name[int32(info.GetStatus())], "WORKFLOW_EXECUTION_STATUS_"),
				SessionID:  keyword(fields[SearchAttributeSessionID]),
				TaskID:     keyword(fields[SearchAttributeTaskID]),
				AgentID:    keyword(fields[SearchAttributeAgentID]),
				Outcome:    keyword(fields[SearchAttributeOutcome]),
				StartTime:  info.GetStartTime().AsTime(),
				CloseTime:  closeTime(info),
			})
		}
		next = page.GetNextPageToken()
		if len(next) == 0 {
			return runs, nil
		}
	}
}

func keyword(payload *commonpb.Payload) string {
	var value string
	if payload == nil || converter.GetDefaultDataConverter().FromPayload(payload, &value) != nil {
		return ""
	}
	return value
}

// closeTime is the zero time while the run is open.
func closeTime(info *workflowpb.WorkflowExecutionInfo) time.Time {
	if info.GetCloseTime() == nil {
		return time.Time{}
	}
	return info.GetCloseTime().AsTime()
}
