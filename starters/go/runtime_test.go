package recovery_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

func TestRuntimeUpdateOfAnUnknownAgentFailsWithTheJobRecord(t *testing.T) {
	w := setup(t)
	agentID := id("no-such-agent")
	before := w.snapshot(t)
	ctx := within(t, time.Minute)

	update, err := w.starter.StartRuntimeUpdate(ctx, recovery.RuntimeUpdateRequest{AgentID: agentID, RequestedBy: "user:go-test"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = update.Await(ctx)

	if update.WorkflowID != "runtime-update-"+agentID {
		t.Errorf("workflow id %q", update.WorkflowID)
	}
	var failed *recovery.RuntimeUpdateFailedError
	if !errors.As(err, &failed) || failed.Type != "RUNTIME_UNKNOWN_AGENT" || failed.Result == nil {
		t.Fatalf("want RUNTIME_UNKNOWN_AGENT with the job record, got %v", err)
	}
	job := *failed.Result
	if job.JobID != update.RunID || job.AgentID != agentID || job.Status != "FAILED" || job.ErrorType != "RUNTIME_UNKNOWN_AGENT" ||
		job.Attempts != 0 || job.Repaired || job.Repair != "NOT_RUN" || job.Probe != nil || !strings.Contains(job.Error, "unknown agent") {
		t.Errorf("job record %+v", job)
	}
	progress, err := update.Progress(ctx)
	if err != nil || progress.Status != "failed" || progress.AgentID != agentID || progress.Error != job.Error {
		t.Errorf("progress %+v (%v)", progress, err)
	}
	if after := w.snapshot(t); after != before {
		t.Errorf("the database changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// The workflow sets KandevAgentId itself, so an update started from Go is listed by agent.
func TestRuntimeUpdatesAreListedByAgent(t *testing.T) {
	w := setup(t)
	agentID := id("listed-agent")
	ctx := within(t, time.Minute)
	update, err := w.starter.StartRuntimeUpdate(ctx, recovery.RuntimeUpdateRequest{AgentID: agentID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := update.Await(ctx); err == nil {
		t.Fatal("an unknown agent was updated")
	}

	var runs []recovery.Run
	eventually(t, 30*time.Second, "the visibility store to list the update of "+agentID, func() bool {
		runs, err = w.starter.ListRuntimeUpdates(ctx, agentID)
		if err != nil {
			t.Fatal(err)
		}
		return len(runs) == 1 && runs[0].Status == "FAILED" && runs[0].Outcome != ""
	})
	if runs[0].RunID != update.RunID || runs[0].WorkflowID != update.WorkflowID || runs[0].AgentID != agentID ||
		runs[0].Outcome != "failed" {
		t.Errorf("run %+v", runs[0])
	}
}

// Inputs no built-in agent id can be read from: none may start an npm command.
func TestMalformedRuntimeUpdatePayloadsFailAtOnceWithInvalidRequest(t *testing.T) {
	w := setup(t)
	cases := []struct {
		name string
		args []any
	}{
		{"missing agentId", raw(`{"requestedBy": "user:go-test"}`)},
		{"agentId a list", raw(`{"agentId": ["opencode-acp"]}`)},
		{"agentId a number", raw(`{"agentId": 7}`)},
		{"nil argument", []any{nil}},
		{"no argument", []any{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			workflowID := recovery.RuntimeUpdateWorkflowID(id("malformed-" + c.name))
			await := func(ctx context.Context, run client.WorkflowRun) error { return run.Get(ctx, nil) }
			w.malformedRunFailsAtOnce(t, workflowID, recovery.RuntimeUpdateWorkflowType, c.args, await, func(err error) {
				var application *temporal.ApplicationError
				if !errors.As(err, &application) || application.Type() != recovery.FailureInvalidRequest ||
					!application.NonRetryable() || application.HasDetails() {
					t.Fatalf("want a non-retryable INVALID_REQUEST without details, got %v", err)
				}
			})
		})
	}
}
