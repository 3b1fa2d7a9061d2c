package recovery_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

func TestStartFreshCreatesAProviderSession(t *testing.T) {
	w := setup(t)
	sessionID := w.newSession(t, "CREATED")
	ctx := within(t, 2*time.Minute)

	resume, result := w.resumeToTheEnd(t, ctx, recovery.ResumeRequest{
		SessionID: sessionID, Mode: recovery.ModeStartFresh, RequestedBy: "user:go-test"})

	if resume.WorkflowID != "resume-session-"+sessionID {
		t.Errorf("workflow id %q", resume.WorkflowID)
	}
	want := recovery.ResumeResult{SessionID: sessionID, TaskID: "t-" + sessionID, Outcome: recovery.OutcomeStartedFresh,
		FinalState: "WAITING_FOR_INPUT", ProviderSessionID: result.ProviderSessionID, Loaded: false}
	if result != want || result.ProviderSessionID == "" {
		t.Errorf("result %+v, want %+v with a provider session", result, want)
	}
	if got := w.state(t, sessionID); got != "WAITING_FOR_INPUT" {
		t.Errorf("session state %s", got)
	}
	if got := w.resumeToken(t, sessionID); got != result.ProviderSessionID {
		t.Errorf("stored token %q, want %q", got, result.ProviderSessionID)
	}
	progress, err := resume.Progress(ctx)
	if err != nil || progress.Step != "DONE" || progress.Mode != recovery.ModeStartFresh || progress.SessionID != sessionID {
		t.Errorf("progress of the ended resume: %+v, %v", progress, err)
	}
}

func TestResumeLoadsTheStoredProviderSession(t *testing.T) {
	w := setup(t)
	sessionID, token := w.failedWithToken(t)
	ctx := within(t, 2*time.Minute)

	_, result := w.resumeToTheEnd(t, ctx, recovery.ResumeRequest{
		SessionID: sessionID, Mode: recovery.ModeResume, RequestedBy: "user:go-test"})

	want := recovery.ResumeResult{SessionID: sessionID, TaskID: "t-" + sessionID, Outcome: recovery.OutcomeResumed,
		FinalState: "WAITING_FOR_INPUT", ProviderSessionID: token, Loaded: true}
	if result != want {
		t.Errorf("result %+v, want %+v", result, want)
	}
	if got := w.transitions(t, sessionID); !strings.HasSuffix(got, "FAILED>STARTING STARTING>WAITING_FOR_INPUT") {
		t.Errorf("transitions %s", got)
	}
	if got := w.resumeToken(t, sessionID); got != token {
		t.Errorf("stored token %q, want %q", got, token)
	}
}

func TestRejectedResumesChangeNothing(t *testing.T) {
	w := setup(t)
	running, _ := w.startedFresh(t)
	completed := w.newSession(t, "COMPLETED")
	cases := []struct {
		name, sessionID, failureType string
	}{
		{"unknown session", id("no-such-session"), "SESSION_NOT_FOUND"},
		{"COMPLETED session", completed, "SESSION_NOT_RESUMABLE"},
		{"agent already running", running, "AGENT_ALREADY_RUNNING"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := w.snapshot(t)
			ctx := within(t, time.Minute)
			resume, err := w.starter.StartResume(ctx, recovery.ResumeRequest{SessionID: c.sessionID, Mode: recovery.ModeResume})
			if err != nil {
				t.Fatal(err)
			}
			_, err = resume.Await(ctx)

			failure := resumeFailure(t, err, c.failureType)
			if failure.SessionID != c.sessionID || failure.Step != "READ_CONTEXT" || failure.FailureType != c.failureType ||
				len(failure.RecoveryActions) != 0 || !strings.Contains(failure.Message, c.failureType) {
				t.Errorf("failure details %+v", failure)
			}
			if after := w.snapshot(t); after != before {
				t.Errorf("the database changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// resumeFailure is the ResumeFailure of err, which must be a non-retryable failure of failureType.
func resumeFailure(t *testing.T, err error, failureType string) recovery.ResumeFailure {
	t.Helper()
	var failed *recovery.ResumeFailedError
	if !errors.As(err, &failed) {
		t.Fatalf("want a resume failure %s, got %v", failureType, err)
	}
	var application *temporal.ApplicationError
	if failed.Type != failureType || !errors.As(err, &application) || !application.NonRetryable() || failed.Failure == nil {
		t.Fatalf("want a non-retryable %s with details, got %v (details %+v)", failureType, err, failed.Failure)
	}
	return *failed.Failure
}

// Payloads a starter other than this package could send: each fails at once with INVALID_REQUEST
// and no details, no workflow task is retried, and the session it names is left alone.
func TestMalformedResumePayloadsFailAtOnceWithInvalidRequest(t *testing.T) {
	w := setup(t)
	sessionID := w.newSession(t, "CREATED")
	cases := []struct {
		name string
		args []any
	}{
		{"unknown mode", raw(`{"sessionId": %q, "mode": "RESUME_PLEASE"}`, sessionID)},
		{"missing sessionId", raw(`{"mode": "START_FRESH"}`)},
		{"sessionId a number", raw(`{"sessionId": 42, "mode": "START_FRESH"}`)},
		{"sessionId an object", raw(`{"sessionId": {"id": %q}, "mode": "START_FRESH"}`, sessionID)},
		{"mode a number", raw(`{"sessionId": %q, "mode": 1}`, sessionID)},
		{"not an object", raw(`[%q, "START_FRESH"]`, sessionID)},
		{"JSON null", raw(`null`)},
		{"nil argument", []any{nil}},
		{"no argument", []any{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			workflowID := recovery.ResumeWorkflowID(id("malformed-" + c.name))
			await := func(ctx context.Context, run client.WorkflowRun) error {
				_, err := w.starter.AttachResume(strings.TrimPrefix(workflowID, "resume-session-"), run.GetRunID()).Await(ctx)
				return err
			}
			w.malformedRunFailsAtOnce(t, workflowID, recovery.ResumeWorkflowType, c.args, await, func(err error) {
				var failed *recovery.ResumeFailedError
				var application *temporal.ApplicationError
				if !errors.As(err, &failed) || failed.Type != recovery.FailureInvalidRequest || failed.Failure != nil ||
					!errors.As(err, &application) || !application.NonRetryable() {
					t.Fatalf("want a non-retryable INVALID_REQUEST without details, got %v", err)
				}
			})
		})
	}
}

// Starters are deployed before workers: a field the worker does not know yet is ignored.
func TestUnknownFieldsAreIgnored(t *testing.T) {
	w := setup(t)
	sessionID := id("no-such-session-newer-starter")
	ctx := within(t, time.Minute)
	run, err := w.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: recovery.ResumeWorkflowID(sessionID), TaskQueue: recovery.TaskQueue},
		recovery.ResumeWorkflowType, raw(`{"sessionId": %q, "mode": "RESUME", "priority": "high"}`, sessionID)...)
	if err != nil {
		t.Fatal(err)
	}
	w.terminateIfRunning(t, run.GetID(), run.GetRunID())

	_, err = w.starter.AttachResume(sessionID, run.GetRunID()).Await(ctx)

	// The request was read: the resume got as far as looking the session up.
	if failure := resumeFailure(t, err, "SESSION_NOT_FOUND"); failure.SessionID != sessionID {
		t.Errorf("failure details %+v", failure)
	}
}

func TestASecondStartAttachesToTheRunningResume(t *testing.T) {
	w := setup(t)
	ctx := within(t, 2*time.Minute)
	held := w.heldStartFresh(t, ctx)
	sessionID, first := held.request.SessionID, held.resume
	if held.progress.SessionID != sessionID || held.progress.Mode != recovery.ModeStartFresh ||
		!slices.Contains(held.progress.Lines, "LAUNCH_AGENT: session/new") {
		t.Errorf("progress %+v", held.progress)
	}

	second, err := w.starter.StartResume(ctx, held.request)
	if err != nil {
		t.Fatal(err)
	}
	_, conflict := w.starter.StartResume(ctx, recovery.ResumeRequest{SessionID: sessionID, Mode: recovery.ModeResume})

	if second.RunID != first.RunID {
		t.Errorf("the second start got run %s, the running one is %s", second.RunID, first.RunID)
	}
	var refused *recovery.ConflictError
	if !errors.As(conflict, &refused) || refused.Running != recovery.ModeStartFresh || refused.RunID != first.RunID {
		t.Errorf("a RESUME while a START_FRESH runs: %v", conflict)
	}
	w.agentMode(t, "normal")
	firstResult, err := first.Await(ctx)
	if err != nil {
		t.Fatal(err)
	}
	secondResult, err := second.Await(ctx)
	if err != nil || secondResult != firstResult || firstResult.Outcome != recovery.OutcomeStartedFresh {
		t.Errorf("results %+v and %+v (%v)", firstResult, secondResult, err)
	}
	if got := w.transitions(t, sessionID); got != "CREATED>STARTING STARTING>WAITING_FOR_INPUT" {
		t.Errorf("transitions %s: one resume ran", got)
	}
}

func TestCancelRestoresThePriorState(t *testing.T) {
	w := setup(t)
	ctx := within(t, 2*time.Minute)
	held := w.heldStartFresh(t, ctx)
	sessionID := held.request.SessionID
	eventually(t, time.Minute, "the agent of "+sessionID+" to be spawned", func() bool { return w.agentLive(t, sessionID) })

	if err := held.resume.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	// At once: the agent that does not answer initialize is stopped, not waited for.
	_, err := held.resume.Await(within(t, 30*time.Second))

	var canceled *temporal.CanceledError
	if !errors.As(err, &canceled) {
		t.Fatalf("want a cancelled resume, got %v", err)
	}
	if got := w.state(t, sessionID); got != "CREATED" {
		t.Errorf("session state %s", got)
	}
	if got := w.transitions(t, sessionID); got != "CREATED>STARTING STARTING>CREATED" {
		t.Errorf("transitions %s", got)
	}
	if w.lockHeld(t, sessionID) || w.agentLive(t, sessionID) {
		t.Errorf("lock held %v, agent live %v", w.lockHeld(t, sessionID), w.agentLive(t, sessionID))
	}
}

func TestResumesAreListedBySession(t *testing.T) {
	w := setup(t)
	sessionID, _ := w.startedFresh(t)
	ctx := within(t, time.Minute)
	rejected, err := w.starter.StartResume(ctx, recovery.ResumeRequest{SessionID: sessionID, Mode: recovery.ModeResume})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rejected.Await(ctx)
	resumeFailure(t, err, "AGENT_ALREADY_RUNNING")

	var runs []recovery.Run
	eventually(t, 30*time.Second, "the visibility store to list both resumes of "+sessionID, func() bool {
		runs, err = w.starter.ListResumes(ctx, sessionID)
		if err != nil {
			t.Fatal(err)
		}
		// Both have ended; visibility shows an upserted outcome before the close.
		return len(runs) == 2 && runs[0].Outcome != "" && runs[1].Outcome != "" &&
			runs[0].Status != "RUNNING" && runs[1].Status != "RUNNING"
	})

	newest, oldest := runs[0], runs[1]
	if newest.RunID != rejected.RunID || newest.Status != "FAILED" || newest.Outcome != recovery.OutcomeFailed {
		t.Errorf("newest %+v", newest)
	}
	// Task and agent are known once the resume read the session.
	if oldest.Status != "COMPLETED" || oldest.Outcome != recovery.OutcomeStartedFresh || oldest.CloseTime.IsZero() ||
		oldest.TaskID != "t-"+sessionID || oldest.AgentID != testAgent {
		t.Errorf("oldest %+v", oldest)
	}
	for _, run := range runs {
		if run.WorkflowID != "resume-session-"+sessionID || run.SessionID != sessionID {
			t.Errorf("run %+v", run)
		}
	}
	if _, err := w.starter.ListResumes(ctx, "s1' OR 'x' = 'x"); err == nil {
		t.Error("a session id with a quote was put into the query")
	}
}

// heldResume is a resume in LAUNCH_AGENT whose agent the test agent's mode holds in ACP initialize.
type heldResume struct {
	request  recovery.ResumeRequest
	resume   *recovery.Resume
	progress recovery.ResumeProgress
}

// heldStartFresh starts a Start fresh of a new CREATED session with the agent held in initialize,
// and returns once the resume is in LAUNCH_AGENT.
func (w *world) heldStartFresh(t *testing.T, ctx context.Context) heldResume {
	t.Helper()
	request := recovery.ResumeRequest{SessionID: w.newSession(t, "CREATED"), Mode: recovery.ModeStartFresh, RequestedBy: "user:go-test"}
	w.agentMode(t, "hold-initialize")
	resume, err := w.starter.StartResume(ctx, request)
	if err != nil {
		t.Fatal(err)
	}
	return heldResume{request, resume, awaitStep(t, resume, "LAUNCH_AGENT")}
}

// awaitStep polls the progress query until the resume is at step.
func awaitStep(t *testing.T, resume *recovery.Resume, step string) recovery.ResumeProgress {
	t.Helper()
	var progress recovery.ResumeProgress
	eventually(t, time.Minute, resume.WorkflowID+" to reach "+step, func() bool {
		var err error
		progress, err = resume.Progress(within(t, 10*time.Second))
		return err == nil && progress.Step == step
	})
	return progress
}

// raw is one JSON input, sent as it is.
func raw(format string, args ...any) []any {
	return []any{json.RawMessage(fmt.Sprintf(format, args...))}
}
