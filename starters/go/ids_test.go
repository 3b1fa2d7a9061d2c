package recovery_test

import (
	"context"
	"strings"
	"testing"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

// The longest valid id makes workflow ids that Temporal on SQL stores (255 bytes); one byte more is
// refused before anything reaches the server, as the Java client and the workflows refuse it.
func TestIDsFitTheWorkflowIDsOfTemporalOnSQL(t *testing.T) {
	longest := strings.Repeat("é", recovery.MaxIDBytes/2-1) + "xx"
	if len(longest) != recovery.MaxIDBytes || recovery.MaxIDBytes != 240 {
		t.Fatalf("longest id is %d bytes, MaxIDBytes %d; want 240", len(longest), recovery.MaxIDBytes)
	}
	for _, id := range []string{recovery.ResumeWorkflowID(longest), recovery.RuntimeUpdateWorkflowID(longest)} {
		if len(id) > 255 {
			t.Errorf("workflow id %.20s… is %d bytes; SQL-backed Temporal stores at most 255", id, len(id))
		}
	}
	starter := recovery.NewStarter(nil) // never reached: the id is refused first
	_, err := starter.StartResume(context.Background(), recovery.ResumeRequest{SessionID: longest + "x", Mode: recovery.ModeResume})
	if err == nil || err.Error() != "sessionId is 241 bytes long; at most 240 (UTF-8) are allowed" {
		t.Errorf("StartResume with a 241-byte id: %v", err)
	}
	_, err = starter.StartRuntimeUpdate(context.Background(), recovery.RuntimeUpdateRequest{AgentID: strings.Repeat("a", 241)})
	if err == nil || err.Error() != "agentId is 241 bytes long; at most 240 (UTF-8) are allowed" {
		t.Errorf("StartRuntimeUpdate with a 241-byte id: %v", err)
	}
}
