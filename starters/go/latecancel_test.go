package recovery

import (
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
)

// A CANCELED run whose KandevOutcome says it resumed is read as resumed; any other is cancelled.
func TestALateCancelLeavesTheResumeStanding(t *testing.T) {
	canceled := enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED
	for _, c := range []struct {
		status  enumspb.WorkflowExecutionStatus
		outcome string
		resumed bool
	}{
		{canceled, OutcomeResumed, true},
		{canceled, OutcomeStartedFresh, true},
		{canceled, OutcomeCancelled, false},
		{canceled, OutcomeFailed, false},
		{canceled, "", false},
		{enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, OutcomeResumed, false},
	} {
		result, resumed := resumedDespiteCancel(c.status, "s1", c.outcome)
		if resumed != c.resumed {
			t.Errorf("%v %q: resumed %v, want %v", c.status, c.outcome, resumed, c.resumed)
			continue
		}
		if resumed && (result.Outcome != c.outcome || result.SessionID != "s1" || result.FinalState != "WAITING_FOR_INPUT" ||
			!result.CancelledLate || result.Loaded != (c.outcome == OutcomeResumed)) {
			t.Errorf("%v %q: result %+v", c.status, c.outcome, result)
		}
	}
}
