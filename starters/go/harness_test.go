package recovery_test

// The tests run against a real kandev-recovery `dev` (the Temporal dev server with the worker) and
// its PostgreSQL schema, both started by worker/src/test/java/.../GoStarterIT.java, which passes:
//
//	KANDEV_STARTER_TEMPORAL_ADDRESS  host:port of dev's Temporal server
//	KANDEV_STARTER_DB_URL            postgres://... URL whose search_path is the worker's schema
//	KANDEV_STARTER_AGENT_MODE_FILE   the mode file of the test agent (hold-initialize holds a launch)
//
// Without them every test that needs them is skipped, unless KANDEV_STARTER_REQUIRE_ALL=1 asks for
// a complete run (GoStarterIT sets it): then each fails. scripts/go-starter-tests runs them all.
// Sessions are written with SQL, as Kandev itself writes them.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

// testAgent is the agent id under which GoStarterIT's dev runs the project's test agent.
const testAgent = "test-agent"

type world struct {
	starter  *recovery.Starter
	client   client.Client
	db       *pgxpool.Pool
	modeFile string
}

var (
	shared    *world
	setupErr  error
	nonce     = fmt.Sprintf("%x", time.Now().UnixNano()&0xffffffffff)
	sessions  atomic.Int32
	unsafeIDs = regexp.MustCompile(`[^A-Za-z0-9-]+`)
)

func TestMain(m *testing.M) {
	address := os.Getenv("KANDEV_STARTER_TEMPORAL_ADDRESS")
	dbURL := os.Getenv("KANDEV_STARTER_DB_URL")
	modeFile := os.Getenv("KANDEV_STARTER_AGENT_MODE_FILE")
	if address != "" && dbURL != "" && modeFile != "" {
		shared, setupErr = connect(address, dbURL, modeFile)
	}
	code := m.Run()
	if shared != nil {
		shared.client.Close()
		shared.db.Close()
	}
	os.Exit(code)
}

func connect(address, dbURL, modeFile string) (*world, error) {
	c, err := client.Dial(client.Options{
		HostPort:  address,
		Namespace: "default",
		Logger:    tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))),
	})
	if err != nil {
		return nil, fmt.Errorf("temporal at %s: %w", address, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := pgxpool.New(ctx, dbURL)
	if err == nil {
		err = db.Ping(ctx)
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return &world{starter: recovery.NewStarter(c), client: c, db: db, modeFile: modeFile}, nil
}

// setup is the shared dev and database, or skips the test when GoStarterIT did not start them (fails
// it when KANDEV_STARTER_REQUIRE_ALL=1).
func setup(t *testing.T) *world {
	t.Helper()
	if setupErr != nil {
		t.Fatalf("cannot reach what GoStarterIT started: %v", setupErr)
	}
	if shared == nil {
		missing := "KANDEV_STARTER_TEMPORAL_ADDRESS, KANDEV_STARTER_DB_URL and KANDEV_STARTER_AGENT_MODE_FILE are not set;" +
			" run them all with scripts/go-starter-tests (it starts dev)"
		if os.Getenv("KANDEV_STARTER_REQUIRE_ALL") == "1" {
			t.Fatal(missing + "; KANDEV_STARTER_REQUIRE_ALL=1 asks for a complete run")
		}
		t.Skip(missing)
	}
	return shared
}

// within is a context that ends after d or with the test.
func within(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// eventually checks cond until it holds, failing the test after d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		<-tick.C
	}
}

// id is an id unique to this test run, readable in the Web UI.
func id(label string) string {
	return "go-" + strings.ToLower(unsafeIDs.ReplaceAllString(label, "-")) + "-" + nonce
}

// newSession writes a task with one session of the test agent in state, never launched.
func (w *world) newSession(t *testing.T, state string) string {
	t.Helper()
	sessionID := id(fmt.Sprintf("%s-%d", t.Name(), sessions.Add(1)))
	w.exec(t, "INSERT INTO tasks (id, workspace_id, title, state) VALUES ($1, 'ws-1', 'go starter test', 'REVIEW')",
		"t-"+sessionID)
	w.exec(t, "INSERT INTO task_sessions (id, task_id, agent_id, state, metadata) VALUES ($1, $2, $3, $4, '{}')",
		sessionID, "t-"+sessionID, testAgent, state)
	return sessionID
}

// startedFresh is a session whose agent runs after a successful Start fresh, and its provider session.
func (w *world) startedFresh(t *testing.T) (string, string) {
	t.Helper()
	sessionID := w.newSession(t, "CREATED")
	_, result := w.resumeToTheEnd(t, within(t, 2*time.Minute),
		recovery.ResumeRequest{SessionID: sessionID, Mode: recovery.ModeStartFresh})
	return sessionID, result.ProviderSessionID
}

// resumeToTheEnd starts a resume and waits for its success.
func (w *world) resumeToTheEnd(t *testing.T, ctx context.Context, req recovery.ResumeRequest) (*recovery.Resume, recovery.ResumeResult) {
	t.Helper()
	resume, err := w.starter.StartResume(ctx, req)
	if err != nil {
		t.Fatalf("%s of %s: %v", req.Mode, req.SessionID, err)
	}
	result, err := resume.Await(ctx)
	if err != nil {
		t.Fatalf("%s of %s: %v", req.Mode, req.SessionID, err)
	}
	return resume, result
}

// failedWithToken is a session whose agent made its provider session and then failed, as Kandev
// records it: FAILED with an event, its agent stopped by the worker, its token stored.
func (w *world) failedWithToken(t *testing.T) (string, string) {
	t.Helper()
	sessionID, token := w.startedFresh(t)
	ctx := within(t, 30*time.Second)
	err := pgx.BeginFunc(ctx, w.db, func(tx pgx.Tx) error {
		moved, err := tx.Exec(ctx, "UPDATE task_sessions SET state = 'FAILED', error_message = 'agent process exited',"+
			" updated_at = now() WHERE id = $1 AND state = 'WAITING_FOR_INPUT'", sessionID)
		if err == nil && moved.RowsAffected() != 1 {
			err = fmt.Errorf("session %s was not WAITING_FOR_INPUT", sessionID)
		}
		if err == nil {
			_, err = tx.Exec(ctx, "INSERT INTO session_events (session_id, task_id, from_state, to_state, reason, error_message)"+
				" VALUES ($1, $2, 'WAITING_FOR_INPUT', 'FAILED', 'go test setup', 'agent process exited')", sessionID, "t-"+sessionID)
		}
		return err
	})
	if err != nil {
		t.Fatalf("failing %s: %v", sessionID, err)
	}
	eventually(t, 30*time.Second, "the worker to stop the agent of the failed session "+sessionID, func() bool {
		return !w.agentLive(t, sessionID)
	})
	return sessionID, token
}

// agentMode sets the mode of the next test agent process; the test ends with it back to normal.
func (w *world) agentMode(t *testing.T, mode string) {
	t.Helper()
	if err := os.WriteFile(w.modeFile, []byte(mode), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.WriteFile(w.modeFile, []byte("normal"), 0o644) })
}

func (w *world) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := w.db.Exec(within(t, 10*time.Second), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (w *world) text(t *testing.T, sql string, args ...any) string {
	t.Helper()
	var out string
	if err := w.db.QueryRow(within(t, 10*time.Second), sql, args...).Scan(&out); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func (w *world) state(t *testing.T, sessionID string) string {
	return w.text(t, "SELECT state FROM task_sessions WHERE id = $1", sessionID)
}

// transitions are the session's state changes, oldest first, as FROM>TO.
func (w *world) transitions(t *testing.T, sessionID string) string {
	return w.text(t, "SELECT coalesce(string_agg(from_state || '>' || to_state, ' ' ORDER BY id), '')"+
		" FROM session_events WHERE session_id = $1", sessionID)
}

func (w *world) resumeToken(t *testing.T, sessionID string) string {
	return w.text(t, "SELECT coalesce(resume_token, '') FROM executors_running WHERE session_id = $1", sessionID)
}

func (w *world) lockHeld(t *testing.T, sessionID string) bool {
	return w.text(t, "SELECT count(*)::text FROM resume_locks WHERE session_id = $1", sessionID) != "0"
}

func (w *world) agentLive(t *testing.T, sessionID string) bool {
	return w.text(t, "SELECT count(*)::text FROM executors_running WHERE session_id = $1"+
		" AND status IN ('starting', 'running', 'ready')", sessionID) != "0"
}

// snapshot is every table a resume or a runtime update writes, as text, to compare before and after
// a request that must change nothing.
func (w *world) snapshot(t *testing.T) string {
	t.Helper()
	var out strings.Builder
	for _, table := range []string{"tasks", "task_sessions", "session_events", "executors_running", "resume_locks",
		"credential_leases", "runtime_update_jobs"} {
		out.WriteString(table + ":\n" + w.text(t, "SELECT coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '') FROM "+table+" t") + "\n")
	}
	return out.String()
}

// workflowTaskFailures counts the failed workflow tasks in a run's history (a task the worker
// could not run is retried, and shows up here each time).
func (w *world) workflowTaskFailures(t *testing.T, workflowID, runID string) int {
	t.Helper()
	events := w.client.GetWorkflowHistory(within(t, 10*time.Second), workflowID, runID, false,
		enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	failures := 0
	for events.HasNext() {
		event, err := events.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", workflowID, err)
		}
		if event.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED {
			failures++
		}
	}
	return failures
}

// running tells whether the run has not ended yet.
func (w *world) running(t *testing.T, workflowID, runID string) bool {
	t.Helper()
	described, err := w.client.DescribeWorkflowExecution(within(t, 10*time.Second), workflowID, runID)
	if err != nil {
		t.Fatalf("describe %s: %v", workflowID, err)
	}
	return described.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// terminateIfRunning ends a run a failed test left retrying, so it does not burden the next tests.
func (w *world) terminateIfRunning(t *testing.T, workflowID, runID string) {
	t.Cleanup(func() {
		if w.running(t, workflowID, runID) {
			_ = w.client.TerminateWorkflow(within(t, 10*time.Second), workflowID, runID, "go test cleanup: the run was still running")
		}
	})
}

// malformedRunFailsAtOnce starts workflowType with args under workflowID, waits for the run with
// await, and checks its error with check: the run must have ended within 15 s, after at most 10 s,
// without a workflow task failure, and without a change to the database.
func (w *world) malformedRunFailsAtOnce(t *testing.T, workflowID, workflowType string, args []any,
	await func(ctx context.Context, run client.WorkflowRun) error, check func(err error)) {
	t.Helper()
	before := w.snapshot(t)
	ctx := within(t, 30*time.Second)
	started := time.Now()
	run, err := w.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: workflowID, TaskQueue: recovery.TaskQueue},
		workflowType, args...)
	if err != nil {
		t.Fatal(err)
	}
	w.terminateIfRunning(t, workflowID, run.GetRunID())
	err = await(within(t, 15*time.Second), run)

	if w.running(t, workflowID, run.GetRunID()) {
		t.Fatalf("still running after 15 s (%d workflow task failures so far)",
			w.workflowTaskFailures(t, workflowID, run.GetRunID()))
	}
	check(err)
	if elapsed := time.Since(started); elapsed > 10*time.Second {
		t.Errorf("ended after %s", elapsed)
	}
	if n := w.workflowTaskFailures(t, workflowID, run.GetRunID()); n != 0 {
		t.Errorf("%d workflow task failures before the run failed", n)
	}
	if after := w.snapshot(t); after != before {
		t.Errorf("the database changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
