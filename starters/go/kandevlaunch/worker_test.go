package kandevlaunch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
)

// fakeExecutor launches by calling its launch function and counts its stops.
type fakeExecutor struct {
	launch  func(ctx context.Context, req LaunchRequest) (LaunchOutcome, error)
	mu      sync.Mutex
	got     []LaunchRequest
	stopped []string
	stopErr error
}

func (f *fakeExecutor) Launch(ctx context.Context, req LaunchRequest) (LaunchOutcome, error) {
	f.mu.Lock()
	f.got = append(f.got, req)
	f.mu.Unlock()
	return f.launch(ctx, req)
}

func (f *fakeExecutor) Stop(_ context.Context, sessionID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = append(f.stopped, sessionID)
	return f.stopErr
}

func (f *fakeExecutor) stops() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.stopped...)
}

var loaded = LaunchOutcome{ProviderSessionID: "ses_abc", Loaded: true, PID: 4242, AgentName: "test-agent", SessionMethod: SessionLoad}

// activityEnv is the SDK's test environment with the worker's two activities registered under the
// contract's type names.
func activityEnv(t *testing.T, ex Executor, opts Options) (*testsuite.TestActivityEnvironment, *atomic.Int32) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	a := newActivities(ex, opts)
	env.RegisterActivityWithOptions(a.LaunchAgent, activity.RegisterOptions{Name: LaunchActivityType})
	env.RegisterActivityWithOptions(a.StopAgent, activity.RegisterOptions{Name: StopActivityType})
	beats := &atomic.Int32{}
	env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) { beats.Add(1) })
	return env, beats
}

func TestLaunchAgentPassesTheJavaArgumentsAndReturnsTheOutcome(t *testing.T) {
	ex := &fakeExecutor{launch: func(context.Context, LaunchRequest) (LaunchOutcome, error) { return loaded, nil }}
	env, _ := activityEnv(t, ex, Options{})
	val, err := env.ExecuteActivity(LaunchActivityType, "s-42", []string{"lease-1", "lease-2"}, int64(7))
	if err != nil {
		t.Fatal(err)
	}
	var got LaunchOutcome
	if err := val.Get(&got); err != nil {
		t.Fatal(err)
	}
	if got != loaded {
		t.Errorf("outcome %+v, want %+v", got, loaded)
	}
	want := LaunchRequest{SessionID: "s-42", LeaseIDs: []string{"lease-1", "lease-2"}, Fence: 7}
	if len(ex.got) != 1 || ex.got[0].SessionID != want.SessionID || ex.got[0].Fence != 7 || len(ex.got[0].LeaseIDs) != 2 ||
		ex.got[0].LeaseIDs[1] != "lease-2" {
		t.Errorf("executor got %+v, want %+v", ex.got, want)
	}
	if len(ex.stops()) != 0 {
		t.Errorf("a successful launch stopped %v", ex.stops())
	}
}

// The outcome's JSON is the Java LaunchOutcome's, field for field.
func TestOutcomeJSONIsTheJavaRecords(t *testing.T) {
	b, err := json.Marshal(loaded)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"providerSessionId":"ses_abc","loaded":true,"pid":4242,"agentName":"test-agent","sessionMethod":"session/load"}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

func TestLaunchFailuresAreNonRetryableWithTheContractsTypes(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		wantType string
	}{
		{"typed", Failf(AgentSessionLoadRejected, "unknown session ses_abc"), AgentSessionLoadRejected},
		{"wrapped", errors.Join(errors.New("ctx"), Failf(AgentExitedBeforeInitialize, "exit 3")), AgentExitedBeforeInitialize},
		{"host", Failf(AgentHostUnavailable, "bound to host b"), AgentHostUnavailable},
		{"plain error", errors.New("exec: kandev-agent: not found"), AgentProcessStartFailed},
		{"not a launch type", Failf("RESUME_LOCK_LOST", "no"), AgentProcessStartFailed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ex := &fakeExecutor{launch: func(context.Context, LaunchRequest) (LaunchOutcome, error) { return LaunchOutcome{}, c.err }}
			env, _ := activityEnv(t, ex, Options{})
			_, err := env.ExecuteActivity(LaunchActivityType, "s-1", []string{}, int64(1))
			var app *temporal.ApplicationError
			if !errors.As(err, &app) {
				t.Fatalf("error %v is not an ApplicationError", err)
			}
			if app.Type() != c.wantType || !app.NonRetryable() {
				t.Errorf("type %s non-retryable %v, want %s non-retryable", app.Type(), app.NonRetryable(), c.wantType)
			}
		})
	}
}

func TestAnInvalidOutcomeFailsTheLaunchAndStopsItsAgent(t *testing.T) {
	for name, outcome := range map[string]LaunchOutcome{
		"no provider session": {SessionMethod: SessionNew},
		"unknown method":      {ProviderSessionID: "p", SessionMethod: "session/fork"},
		"new but loaded":      {ProviderSessionID: "p", Loaded: true, SessionMethod: SessionNew},
		"load but not loaded": {ProviderSessionID: "p", SessionMethod: SessionLoad},
	} {
		t.Run(name, func(t *testing.T) {
			ex := &fakeExecutor{launch: func(context.Context, LaunchRequest) (LaunchOutcome, error) { return outcome, nil }}
			env, _ := activityEnv(t, ex, Options{})
			_, err := env.ExecuteActivity(LaunchActivityType, "s-1", []string{}, int64(1))
			var app *temporal.ApplicationError
			if !errors.As(err, &app) || app.Type() != AgentProcessStartFailed {
				t.Fatalf("error %v, want %s", err, AgentProcessStartFailed)
			}
			if got := ex.stops(); len(got) != 1 || got[0] != "s-1" {
				t.Errorf("stops %v, want [s-1]", got)
			}
		})
	}
}

// The fake launches below stay under way until the heartbeats they wait for arrived: a condition,
// not a duration, so a loaded machine makes them slower, never wrong.
func TestALaunchUnderWayHeartbeats(t *testing.T) {
	var beats atomic.Int32
	ex := &fakeExecutor{launch: func(context.Context, LaunchRequest) (LaunchOutcome, error) {
		return loaded, await(func() bool { return beats.Load() >= 3 }, "3 heartbeats of a launch under way")
	}}
	a := newActivities(ex, Options{HeartbeatInterval: 10 * time.Millisecond})
	if _, err := a.launch(context.Background(), LaunchRequest{SessionID: "s-1"}, func() { beats.Add(1) }); err != nil {
		t.Fatal(err)
	}
	// The SDK's own heartbeat reaches the server through the activity's context.
	var sent *atomic.Int32
	viaSDK := &fakeExecutor{launch: func(context.Context, LaunchRequest) (LaunchOutcome, error) {
		return loaded, await(func() bool { return sent.Load() > 0 }, "a heartbeat through the SDK")
	}}
	env, heard := activityEnv(t, viaSDK, Options{HeartbeatInterval: 10 * time.Millisecond})
	sent = heard
	if _, err := env.ExecuteActivity(LaunchActivityType, "s-1", []string{}, int64(1)); err != nil {
		t.Fatal(err)
	}
}

// await polls done until it holds (nil) or 10 s passed (an error naming what never came).
func await(done func() bool, what string) error {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if done() {
			return nil
		}
	}
	return fmt.Errorf("no %s within 10 s", what)
}

// A cancelled launch (the resume cancelled, or its heartbeat timed out: the SDK cancels ctx) is
// waited for, then its agent is stopped; the activity reports the cancellation.
func TestACancelledLaunchWaitsForTheExecutorThenStopsTheAgent(t *testing.T) {
	returned := make(chan struct{})
	ex := &fakeExecutor{launch: func(ctx context.Context, _ LaunchRequest) (LaunchOutcome, error) {
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // the executor tears its half-started agent down
		close(returned)
		return LaunchOutcome{}, ctx.Err()
	}}
	a := newActivities(ex, Options{HeartbeatInterval: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var beats atomic.Int32
	go func() {
		for beats.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := a.launch(ctx, LaunchRequest{SessionID: "s-9"}, func() { beats.Add(1) })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	select {
	case <-returned:
	default:
		t.Error("launch returned before the executor's Launch did")
	}
	if got := ex.stops(); len(got) != 1 || got[0] != "s-9" {
		t.Errorf("stops %v, want [s-9]", got)
	}
}

// A Launch that succeeds just as its ctx ends leaves no agent: nobody will settle it.
func TestALaunchThatSucceedsAfterItsCancellationIsStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ex := &fakeExecutor{launch: func(context.Context, LaunchRequest) (LaunchOutcome, error) {
		cancel()
		return loaded, nil
	}}
	a := newActivities(ex, Options{})
	if _, err := a.launch(ctx, LaunchRequest{SessionID: "s-3"}, func() {}); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if got := ex.stops(); len(got) != 1 {
		t.Errorf("stops %v, want one", got)
	}
}

func TestStopAgentIsTheExecutorsStop(t *testing.T) {
	ex := &fakeExecutor{}
	env, _ := activityEnv(t, ex, Options{})
	for range 2 {
		if _, err := env.ExecuteActivity(StopActivityType, "s-5"); err != nil {
			t.Fatal(err)
		}
	}
	if got := ex.stops(); len(got) != 2 || got[0] != "s-5" {
		t.Errorf("stops %v", got)
	}
	ex.stopErr = errors.New("executor unreachable")
	_, err := env.ExecuteActivity(StopActivityType, "s-5")
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.NonRetryable() {
		t.Errorf("a failed stop: %v, want a retryable error", err)
	}
}

func TestNewWorkerRefusesBadArguments(t *testing.T) {
	ex := &fakeExecutor{}
	if _, err := NewWorker(nil, "q", "h", ex, Options{}); err == nil {
		t.Error("no client accepted")
	}
}

func TestQueueNamesAreTheJavaOnes(t *testing.T) {
	if got := LaunchQueue("kandev-recovery", "build-1"); got != "kandev-recovery@build-1/launch" {
		t.Error(got)
	}
	if got := HostQueue("kandev-recovery", "build-1"); got != "kandev-recovery@build-1" {
		t.Error(got)
	}
}
