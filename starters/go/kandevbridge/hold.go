package kandevbridge

import (
	"context"
	"errors"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

// HeldByResume tells whether the latest ResumeSessionWorkflow of the session is running (see
// Bridge.HeldByResume). A session that never had a resume is not held.
func HeldByResume(ctx context.Context, starter *recovery.Starter, sessionID string) (bool, error) {
	described, err := starter.Client.DescribeWorkflowExecution(ctx, recovery.ResumeWorkflowID(sessionID), "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return described.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
}
