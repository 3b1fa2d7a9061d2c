package kandevbridge_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
	"github.com/kdlbs/kandev-recovery/starters/go/kandevbridge"
)

func bridge() *kandevbridge.Bridge {
	return kandevbridge.New(&recovery.Starter{Client: temporalC, TaskQueue: testQueue})
}

// startsCounted is a client that counts the workflow starts (or attaches) it made, so a test
// releases a held resume only once every entry point has joined it.
type startsCounted struct {
	client.Client
	starts chan struct{}
}

func (c *startsCounted) ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any,
	args ...any) (client.WorkflowRun, error) {
	run, err := c.Client.ExecuteWorkflow(ctx, options, workflow, args...)
	c.starts <- struct{}{}
	return run, err
}

// countingBridge is a bridge whose starts are counted on starts.
func countingBridge() (*kandevbridge.Bridge, chan struct{}) {
	starts := make(chan struct{}, 16)
	return kandevbridge.New(&recovery.Starter{Client: &startsCounted{Client: temporalC, starts: starts}, TaskQueue: testQueue}), starts
}

// awaitStarts waits for n starts.
func awaitStarts(t *testing.T, starts chan struct{}, n int) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for range n {
		select {
		case <-starts:
		case <-timeout:
			t.Fatalf("fewer than %d starts", n)
		}
	}
}

func release(t *testing.T, sessionID string) {
	t.Helper()
	if err := temporalC.SignalWorkflow(within(t, 10*time.Second), recovery.ResumeWorkflowID(sessionID), "", "release", nil); err != nil {
		t.Fatal(err)
	}
}

// runsOf counts the runs of the session's resume.
func runsOf(t *testing.T, sessionID string) int {
	t.Helper()
	var n int
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		page, err := temporalC.CountWorkflow(within(t, 10*time.Second), &workflowservice.CountWorkflowExecutionsRequest{
			Query: "WorkflowId = '" + recovery.ResumeWorkflowID(sessionID) + "'"})
		if err != nil {
			t.Fatal(err)
		}
		n = int(page.GetCount())
		if n > 0 {
			return n
		}
	}
	return n
}

// waitRunning waits until the session's resume has started.
func waitRunning(t *testing.T, sessionID string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		held, err := bridge().HeldByResume(within(t, 5*time.Second), sessionID)
		if err == nil && held {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the resume of %s did not start (%v)", sessionID, err)
		}
	}
}

func memo(t *testing.T, sessionID, key string) string {
	t.Helper()
	described, err := temporalC.DescribeWorkflowExecution(within(t, 10*time.Second), recovery.ResumeWorkflowID(sessionID), "")
	if err != nil {
		t.Fatal(err)
	}
	var value string
	if p := described.GetWorkflowExecutionInfo().GetMemo().GetFields()[key]; p != nil {
		_ = converter.GetDefaultDataConverter().FromPayload(p, &value)
	}
	return value
}

func TestUIResumeWaitsForTheWorkflowAndUsesTheAgent(t *testing.T) {
	needs(t)
	session := sessionID(t, "ok")

	d, err := bridge().Resume(within(t, time.Minute), kandevbridge.Request{
		Entry: kandevbridge.EntryResume, SessionID: session, RequestedBy: "user:alice"})

	if err != nil {
		t.Fatal(err)
	}
	want := kandevbridge.Decision{Action: kandevbridge.ActionUseAgent, Outcome: recovery.OutcomeResumed,
		SessionState: "WAITING_FOR_INPUT", ProviderSessionID: "acp-" + session, Loaded: true, RunID: d.RunID}
	if !equal(d, want) || d.RunID == "" {
		t.Errorf("decision %+v, want %+v", d, want)
	}
	if got := memo(t, session, "reason"); got != "user" {
		t.Errorf("reason %q", got)
	}
	if got := memo(t, session, "requestedBy"); got != "user:alice" {
		t.Errorf("requestedBy %q", got)
	}
}

func TestStartFreshRunsTheStartFreshMode(t *testing.T) {
	needs(t)
	session := sessionID(t, "ok")

	d, err := bridge().Resume(within(t, time.Minute), kandevbridge.Request{Entry: kandevbridge.EntryStartFresh, SessionID: session})

	if err != nil || d.Action != kandevbridge.ActionUseAgent || d.Outcome != recovery.OutcomeStartedFresh || d.Loaded {
		t.Errorf("decision %+v, %v", d, err)
	}
	if got := memo(t, session, "mode"); got != string(recovery.ModeStartFresh) {
		t.Errorf("mode %q", got)
	}
}

// The UI's Resume, the page's auto-resume and a prompt, all at once for one session: one run, and
// each of them waits for it.
func TestEntryPointsOfOneSessionShareItsOneResume(t *testing.T) {
	needs(t)
	session := sessionID(t, "hold")
	entries := []kandevbridge.Entry{kandevbridge.EntryResume, kandevbridge.EntryOpen, kandevbridge.EntryPrompt}
	decisions := make([]kandevbridge.Decision, len(entries))
	b, starts := countingBridge()
	var wg sync.WaitGroup
	for i, entry := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			decisions[i], _ = b.Resume(within(t, time.Minute), kandevbridge.Request{Entry: entry, SessionID: session})
		}()
	}
	awaitStarts(t, starts, len(entries))
	release(t, session)
	wg.Wait()

	for i, d := range decisions {
		if d.Action != kandevbridge.ActionUseAgent || d.RunID != decisions[0].RunID || d.RunID == "" {
			t.Errorf("%s: %+v (first run %s)", entries[i], d, decisions[0].RunID)
		}
	}
	if n := runsOf(t, session); n != 1 {
		t.Errorf("%d runs, want 1", n)
	}
}

// A prompt and the page's auto-resume join a running Start fresh (they need an agent, either mode
// gives one); the UI's Resume is told of it instead.
func TestOnlyTheUsersOwnChoiceIsRefusedByARunningStartFresh(t *testing.T) {
	needs(t)
	session := sessionID(t, "hold")
	var fresh kandevbridge.Decision
	done := make(chan struct{})
	go func() {
		fresh, _ = bridge().Resume(within(t, time.Minute), kandevbridge.Request{Entry: kandevbridge.EntryStartFresh, SessionID: session})
		close(done)
	}()
	waitRunning(t, session)

	resume, err := bridge().Resume(within(t, time.Minute), kandevbridge.Request{Entry: kandevbridge.EntryResume, SessionID: session})
	if err != nil || resume.Action != kandevbridge.ActionConflict || resume.Message != "a Start fresh of this session is running; resume was not started" {
		t.Errorf("UI resume during a Start fresh: %+v, %v", resume, err)
	}
	var prompt kandevbridge.Decision
	prompted := make(chan struct{})
	b, starts := countingBridge()
	go func() {
		prompt, _ = b.Resume(within(t, time.Minute), kandevbridge.Request{Entry: kandevbridge.EntryPrompt, SessionID: session})
		close(prompted)
	}()
	awaitStarts(t, starts, 1)
	release(t, session)
	<-done
	<-prompted

	if fresh.Action != kandevbridge.ActionUseAgent || fresh.Outcome != recovery.OutcomeStartedFresh {
		t.Errorf("Start fresh: %+v", fresh)
	}
	if prompt.Action != kandevbridge.ActionUseAgent || prompt.RunID != fresh.RunID || prompt.Outcome != recovery.OutcomeStartedFresh {
		t.Errorf("prompt joined %+v, want the Start fresh run %s", prompt, fresh.RunID)
	}
}

// The web UI gives a resume 30 s; the bridge answers STARTING before that and the run goes on.
func TestTheUIIsAnsweredStartingWhileTheResumeGoesOn(t *testing.T) {
	needs(t)
	session := sessionID(t, "hold")
	started := time.Now()

	d, err := bridge().WithAnswerWithin(time.Second).Resume(within(t, time.Minute),
		kandevbridge.Request{Entry: kandevbridge.EntryOpen, SessionID: session})

	if err != nil || d.Action != kandevbridge.ActionAnswerStarting || d.SessionState != "STARTING" || d.RunID == "" {
		t.Fatalf("decision %+v, %v", d, err)
	}
	if elapsed := time.Since(started); elapsed > 10*time.Second {
		t.Errorf("answered after %s", elapsed)
	}
	if held, err := bridge().HeldByResume(within(t, 10*time.Second), session); err != nil || !held {
		t.Errorf("the resume no longer runs: held %v, %v", held, err)
	}
	// The prompt that follows waits for the same run to its end.
	b, starts := countingBridge()
	go func() { awaitStarts(t, starts, 1); release(t, session) }()
	prompt, _ := b.WithAnswerWithin(time.Second).Resume(within(t, time.Minute),
		kandevbridge.Request{Entry: kandevbridge.EntryPrompt, SessionID: session})
	if prompt.Action != kandevbridge.ActionUseAgent || prompt.RunID != d.RunID {
		t.Errorf("prompt %+v, want the use of run %s", prompt, d.RunID)
	}
}

func TestFailuresTellKandevWhatToDoNext(t *testing.T) {
	needs(t)
	cases := []struct {
		failureType string
		action      kandevbridge.Action
	}{
		{"AGENT_SESSION_LOAD_REJECTED", kandevbridge.ActionOfferRecovery},
		{"AGENT_CANNOT_LOAD_SESSIONS", kandevbridge.ActionOfferRecovery},
		{"AGENT_HOST_UNAVAILABLE", kandevbridge.ActionOfferRecovery},
		{"AGENT_LOST", kandevbridge.ActionOfferRecovery},
		{"ACTIVITY_TIMEOUT_HEARTBEAT", kandevbridge.ActionOfferRecovery},
		{"CREDENTIAL_PROVIDER_UNAVAILABLE", kandevbridge.ActionOfferRecovery},
		{"java.lang.IllegalStateException", kandevbridge.ActionOfferRecovery},
		{"AGENT_ALREADY_RUNNING", kandevbridge.ActionAlreadyRunning},
		{"RESUME_LOCK_HELD", kandevbridge.ActionRetry},
		{"RESUME_LOCK_LOST", kandevbridge.ActionRetry},
		{"SESSION_STATE_SUPERSEDED", kandevbridge.ActionRetry},
		{"SESSION_NOT_FOUND", kandevbridge.ActionNotFound},
		{"SESSION_NOT_RESUMABLE", kandevbridge.ActionNotResumable},
	}
	for _, c := range cases {
		t.Run(c.failureType, func(t *testing.T) {
			session := sessionID(t, "fail."+c.failureType)
			d, err := bridge().Resume(within(t, time.Minute), kandevbridge.Request{Entry: kandevbridge.EntryPrompt, SessionID: session})
			want := kandevbridge.Decision{Action: c.action, SessionState: "FAILED", FailureType: c.failureType,
				Step: "LAUNCH_AGENT", Message: "stand-in " + c.failureType, RunID: d.RunID,
				RecoveryActions: []recovery.ResumeMode{recovery.ModeResume, recovery.ModeStartFresh}}
			if err != nil || !equal(d, want) {
				t.Errorf("decision %+v, %v; want %+v", d, err, want)
			}
		})
	}
	t.Run("INVALID_REQUEST", func(t *testing.T) {
		d, err := bridge().Resume(within(t, time.Minute), kandevbridge.Request{Entry: kandevbridge.EntryResume,
			SessionID: sessionID(t, "fail.INVALID_REQUEST")})
		if err != nil || d.Action != kandevbridge.ActionBadRequest || d.FailureType != "INVALID_REQUEST" {
			t.Errorf("decision %+v, %v", d, err)
		}
	})
}

func TestACancelledResumeIsReportedCancelled(t *testing.T) {
	needs(t)
	session := sessionID(t, "hold")
	go func() {
		waitRunning(t, session)
		_ = temporalC.CancelWorkflow(within(t, 10*time.Second), recovery.ResumeWorkflowID(session), "")
	}()

	d, err := bridge().Resume(within(t, time.Minute), kandevbridge.Request{Entry: kandevbridge.EntryPrompt, SessionID: session})

	if err != nil || d.Action != kandevbridge.ActionCancelled {
		t.Errorf("decision %+v, %v", d, err)
	}
}

// Kandev's boot leaves a held session alone and follows its resume; it starts none.
func TestBootFollowsTheResumeThatHoldsASessionAndStartsNone(t *testing.T) {
	needs(t)
	b := bridge()
	free := sessionID(t, "ok")
	held, err := b.HeldByResume(within(t, 10*time.Second), free)
	if err != nil || held {
		t.Fatalf("a session without a resume: held %v, %v", held, err)
	}
	d, err := b.Resume(within(t, 30*time.Second), kandevbridge.Request{Entry: kandevbridge.EntryBoot, SessionID: free})
	if err != nil || d.Action != kandevbridge.ActionUnavailable {
		t.Errorf("boot of a session without a resume: %+v, %v", d, err)
	}
	if _, err := temporalC.DescribeWorkflowExecution(within(t, 10*time.Second), recovery.ResumeWorkflowID(free), ""); err == nil {
		t.Errorf("the boot started a resume of %s", free)
	}

	session := sessionID(t, "hold")
	if _, err := temporalC.ExecuteWorkflow(within(t, 10*time.Second), client.StartWorkflowOptions{
		ID: recovery.ResumeWorkflowID(session), TaskQueue: testQueue, Memo: map[string]any{"mode": "RESUME"}},
		recovery.ResumeWorkflowType, recovery.ResumeRequest{SessionID: session, Mode: recovery.ModeResume}); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, session)
	if held, err := b.HeldByResume(within(t, 10*time.Second), session); err != nil || !held {
		t.Fatalf("a session whose resume runs: held %v, %v", held, err)
	}
	release(t, session) // the boot follows the run whether or not it ended already
	d, err = b.Resume(within(t, 30*time.Second), kandevbridge.Request{Entry: kandevbridge.EntryBoot, SessionID: session})
	if err != nil || d.Action != kandevbridge.ActionUseAgent {
		t.Errorf("boot of a held session: %+v, %v", d, err)
	}
	if held, _ := b.HeldByResume(within(t, 10*time.Second), session); held {
		t.Errorf("still held after the resume ended")
	}
}

// Kandev never falls back to its in-process resume: Temporal down is a decision, not a launch.
func TestTemporalUnreachableIsUnavailable(t *testing.T) {
	down, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	b := kandevbridge.New(&recovery.Starter{Client: down, TaskQueue: "nobody"})

	d, err := b.Resume(within(t, 20*time.Second), kandevbridge.Request{Entry: kandevbridge.EntryPrompt, SessionID: "s-1"})

	if err != nil || d.Action != kandevbridge.ActionUnavailable || d.Message == "" {
		t.Errorf("decision %+v, %v", d, err)
	}
	if _, err := b.HeldByResume(within(t, 20*time.Second), "s-1"); err == nil {
		t.Error("HeldByResume said something without Temporal")
	}
}

func TestARequestThatCannotBeMadeIsAnError(t *testing.T) {
	b := kandevbridge.New(&recovery.Starter{TaskQueue: "nobody"})
	if _, err := b.Resume(context.Background(), kandevbridge.Request{Entry: "reopen", SessionID: "s"}); err == nil {
		t.Error("an unknown entry point was accepted")
	}
	if _, err := b.Resume(context.Background(), kandevbridge.Request{Entry: kandevbridge.EntryResume}); err == nil {
		t.Error("a blank session id was accepted")
	}
}

func equal(a, b kandevbridge.Decision) bool {
	return slices.Equal(a.RecoveryActions, b.RecoveryActions) && a.Action == b.Action && a.Outcome == b.Outcome &&
		a.SessionState == b.SessionState && a.ProviderSessionID == b.ProviderSessionID && a.Loaded == b.Loaded &&
		a.FailureType == b.FailureType && a.Step == b.Step && a.Message == b.Message && a.RunID == b.RunID
}
