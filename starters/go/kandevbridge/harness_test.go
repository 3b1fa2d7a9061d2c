package kandevbridge_test

// The tests run against a real Temporal server and a real PostgreSQL, the ones GoStarterIT starts
// for the whole Go module (scripts/go-starter-tests):
//
//	KANDEV_STARTER_TEMPORAL_ADDRESS  host:port of a Temporal server
//	KANDEV_STARTER_DB_URL            postgres://... URL of a database the tests may create schemas in
//
// The bridge's tests run a stand-in ResumeSessionWorkflow (same type name, same payloads and failure
// details as docs/contract.md) on a task queue of their own, so each outcome can be produced on
// demand; the real workflow is the Go starter's tests' subject. The relay's tests make a schema of
// ours with the outbox of migration V12 and a schema of Kandev's with its tasks and task_sessions
// (the event tests' fixture), as the "kandev" layout has them. Without the variables the tests
// skip, unless KANDEV_STARTER_REQUIRE_ALL=1: then they fail.

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	recovery "github.com/kdlbs/kandev-recovery/starters/go"
)

var (
	nonce     = fmt.Sprintf("%x", time.Now().UnixNano()&0xffffffffff)
	testQueue = "kandevbridge-test-" + nonce
	temporalC client.Client
	database  *sql.DB
	setupErr  error
	// schemaCount numbers the tests' schemas (a test name can be too long for an identifier).
	schemaCount atomic.Int32
)

func TestMain(m *testing.M) {
	address := os.Getenv("KANDEV_STARTER_TEMPORAL_ADDRESS")
	dbURL := os.Getenv("KANDEV_STARTER_DB_URL")
	var w worker.Worker
	if address != "" && dbURL != "" {
		w, setupErr = connect(address, dbURL)
	}
	code := m.Run()
	if w != nil {
		w.Stop()
	}
	if temporalC != nil {
		temporalC.Close()
	}
	if database != nil {
		database.Close()
	}
	os.Exit(code)
}

func connect(address, dbURL string) (worker.Worker, error) {
	c, err := client.Dial(client.Options{HostPort: address, Namespace: "default",
		Logger: tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))})
	if err != nil {
		return nil, fmt.Errorf("temporal at %s: %w", address, err)
	}
	temporalC = c
	db, err := sql.Open("pgx", dbURL)
	if err == nil {
		err = db.Ping()
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	database = db
	w := worker.New(c, testQueue, worker.Options{})
	w.RegisterWorkflowWithOptions(standInResume, workflow.RegisterOptions{Name: recovery.ResumeWorkflowType})
	return w, w.Start()
}

// needs skips the test when GoStarterIT did not start Temporal and PostgreSQL (fails it when
// KANDEV_STARTER_REQUIRE_ALL=1).
func needs(t *testing.T) {
	t.Helper()
	if setupErr != nil {
		t.Fatalf("cannot reach what GoStarterIT started: %v", setupErr)
	}
	if temporalC == nil {
		missing := "KANDEV_STARTER_TEMPORAL_ADDRESS and KANDEV_STARTER_DB_URL are not set; run scripts/go-starter-tests"
		if os.Getenv("KANDEV_STARTER_REQUIRE_ALL") == "1" {
			t.Fatal(missing + "; KANDEV_STARTER_REQUIRE_ALL=1 asks for a complete run")
		}
		t.Skip(missing)
	}
}

func within(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// sessionID is a session id unique to this run whose stand-in resume does what behaviour says:
// "ok" (RESUMED, the request's token), "hold" (waits for the signal "release", then RESUMED or
// STARTED_FRESH by its mode), or "fail.<FAILURE_TYPE>" (fails with that type and its details).
func sessionID(t *testing.T, behaviour string) string {
	return behaviour + "~" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + "-" + nonce
}

// standInResume is a ResumeSessionWorkflow with the contract's payloads whose outcome the session
// id chooses (see sessionID).
func standInResume(ctx workflow.Context, req recovery.ResumeRequest) (recovery.ResumeResult, error) {
	behaviour, _, _ := strings.Cut(req.SessionID, "~")
	outcome := recovery.OutcomeResumed
	if req.Mode == recovery.ModeStartFresh {
		outcome = recovery.OutcomeStartedFresh
	}
	result := recovery.ResumeResult{SessionID: req.SessionID, TaskID: "t-" + req.SessionID, Outcome: outcome,
		FinalState: "WAITING_FOR_INPUT", ProviderSessionID: "acp-" + req.SessionID, Loaded: req.Mode == recovery.ModeResume}
	switch {
	case behaviour == "ok":
		return result, nil
	case behaviour == "hold":
		release := workflow.GetSignalChannel(ctx, "release")
		selector := workflow.NewSelector(ctx)
		selector.AddReceive(release, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) })
		selector.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		selector.Select(ctx)
		if ctx.Err() != nil {
			return recovery.ResumeResult{}, temporal.NewCanceledError("cancelled while held")
		}
		return result, nil
	case strings.HasPrefix(behaviour, "fail."):
		failureType := strings.TrimPrefix(behaviour, "fail.")
		if failureType == recovery.FailureInvalidRequest {
			return recovery.ResumeResult{}, temporal.NewNonRetryableApplicationError("sessionId is missing", failureType, nil)
		}
		details := recovery.ResumeFailure{SessionID: req.SessionID, Step: "LAUNCH_AGENT", FailureType: failureType,
			Message: "stand-in " + failureType, SessionState: "FAILED",
			RecoveryActions: []recovery.ResumeMode{recovery.ModeResume, recovery.ModeStartFresh}}
		return recovery.ResumeResult{}, temporal.NewNonRetryableApplicationError("stand-in "+failureType, failureType, nil, details)
	}
	return recovery.ResumeResult{}, temporal.NewNonRetryableApplicationError("unknown behaviour "+behaviour, "TEST_BUG", nil)
}

// repoFile reads a file of this repository, relative to its root.
func repoFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// schemas makes our schema (the outbox of V12) and Kandev's (tasks, task_sessions), dropped after
// the test, and returns their names.
func schemas(t *testing.T) (ours, kandev string) {
	t.Helper()
	suffix := fmt.Sprintf("%s_%d", nonce, schemaCount.Add(1))
	ours, kandev = "kb_ours_"+suffix, "kb_kandev_"+suffix
	ctx := within(t, 30*time.Second)
	for schema, ddl := range map[string]string{
		ours:   repoFile(t, "activities/src/main/resources/db/migration/V12__kandev_event_outbox.sql"),
		kandev: repoFile(t, "activities/src/test/resources/kandev-bus/kandev-event-columns.sql"),
	} {
		conn, err := database.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, statement := range []string{"CREATE SCHEMA " + schema, "SET search_path TO " + schema, ddl, "RESET search_path"} {
			if _, err := conn.ExecContext(ctx, statement); err != nil {
				t.Fatalf("%s: %v", firstLine(statement), err)
			}
		}
		_ = conn.Close()
		t.Cleanup(func() { _, _ = database.Exec("DROP SCHEMA " + schema + " CASCADE") })
	}
	return ours, kandev
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func exec(t *testing.T, statement string, args ...any) {
	t.Helper()
	if _, err := database.ExecContext(within(t, 10*time.Second), statement, args...); err != nil {
		t.Fatalf("%s: %v", firstLine(statement), err)
	}
}

func count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := database.QueryRowContext(within(t, 10*time.Second), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", firstLine(query), err)
	}
	return n
}
