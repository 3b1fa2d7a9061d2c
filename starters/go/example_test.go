package recovery_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

// The Kandev API resuming a session after the user clicked Resume (docs/contract.md shows this).
func ExampleStarter_StartResume() {
	c, err := client.Dial(client.Options{HostPort: "127.0.0.1:7233", Namespace: "default"})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	starter := recovery.NewStarter(c)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// Workflow id resume-session-s-42, conflict policy USE_EXISTING: a second click joins this run.
	resume, err := starter.StartResume(ctx, recovery.ResumeRequest{
		SessionID: "s-42", Mode: recovery.ModeResume, Reason: "user", RequestedBy: "user:alice"})
	var conflict *recovery.ConflictError
	if errors.As(err, &conflict) {
		fmt.Println("a", conflict.Running, "of this session is running already")
		return
	}
	if err != nil {
		panic(err)
	}
	result, err := resume.Await(ctx)
	var failed *recovery.ResumeFailedError
	switch {
	case errors.As(err, &failed) && failed.Failure != nil:
		// e.g. AGENT_EXITED_BEFORE_INITIALIZE at LAUNCH_AGENT, session FAILED, actions [RESUME START_FRESH]
		f := failed.Failure
		fmt.Println(f.FailureType, "at", f.Step, "- session", f.SessionState, "- the user may", f.RecoveryActions)
	case err != nil:
		fmt.Println("resume did not finish:", err) // INVALID_REQUEST, cancelled, ctx timed out
	default:
		fmt.Println(result.Outcome, result.ProviderSessionID, "loaded:", result.Loaded)
	}
}
