// Command kandev-launch-worker is the Kandev executor's launch worker (package kandevlaunch) with a
// stand-in for Kandev's executor: it serves LaunchAgent and StopAgent on an executor host's queues and
// starts each session's agent (its KANDEV_AGENTS_FILE argv profile, e.g. the project's test agent) as
// its own child speaking ACP over stdio. Kandev's backend runs kandevlaunch with its own executor
// instead; this program is what the polyglot end-to-end test (KandevLaunchAdapterIT) runs beside a Java
// worker with KANDEV_LAUNCH_ADAPTER=kandev-executor.
//
//	KANDEV_HOST=h1 KANDEV_LAUNCH_DB_URL=postgres://postgres@127.0.0.1:5432/postgres?search_path=kandev_recovery \
//	  KANDEV_AGENTS_FILE=agents.json TEMPORAL_ADDRESS=127.0.0.1:7233 kandev-launch-worker
//
// It prints "Ready." once it polls; SIGTERM or SIGINT stop it cleanly (its agents stopped, its
// presence removed). With KANDEV_STATE_DIR it records itself there, and a successor started after it
// was killed removes its presence at once. Exit code 2 for bad settings, 1 when it cannot run.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.temporal.io/sdk/client"

	"github.com/kdlbs/kandev-recovery/starters/go/kandevlaunch"
)

// beatEvery is the Java WorkerPresenceStore.BEAT_EVERY: an instance silent for 60 s is gone.
const beatEvery = 15 * time.Second

func main() {
	os.Exit(run())
}

func run() int {
	host := os.Getenv("KANDEV_HOST")
	dbURL := os.Getenv("KANDEV_LAUNCH_DB_URL")
	if host == "" || dbURL == "" {
		fmt.Fprintln(os.Stderr, "kandev-launch-worker: KANDEV_HOST and KANDEV_LAUNCH_DB_URL are required")
		return 2
	}
	maxLaunches, err := strconv.Atoi(envOr("KANDEV_MAX_CONCURRENT_LAUNCHES", "4"))
	if err != nil || maxLaunches < 1 {
		fmt.Fprintln(os.Stderr, "kandev-launch-worker: KANDEV_MAX_CONCURRENT_LAUNCHES must be a whole number of at least 1")
		return 2
	}
	profiles, err := loadProfiles(os.Getenv("KANDEV_AGENTS_FILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "kandev-launch-worker: KANDEV_AGENTS_FILE:", err)
		return 2
	}
	instance := envOr("KANDEV_WORKER_INSTANCE", fmt.Sprintf("kandev-launch-worker-%d/%s", os.Getpid(), newID()[:8]))

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kandev-launch-worker: KANDEV_LAUNCH_DB_URL:", err)
		return 2
	}
	defer pool.Close()
	db := &store{db: pool, host: host, instance: instance}
	if err := db.beat(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "kandev-launch-worker: PostgreSQL:", err)
		return 1
	}
	stateDir := os.Getenv("KANDEV_STATE_DIR")
	if stateDir != "" {
		if gone, ok := readPredecessor(stateDir); ok && gone.instance != instance && gone.gone() {
			if err := db.leaveInstance(ctx, gone.instance); err != nil {
				fmt.Fprintln(os.Stderr, "kandev-launch-worker: PostgreSQL:", err)
				return 1
			}
			fmt.Printf("Predecessor  %s (pid %d) is gone: its agents count as lost now\n", gone.instance, gone.pid)
		}
		if err := recordSelf(stateDir, instance); err != nil {
			fmt.Fprintln(os.Stderr, "kandev-launch-worker: KANDEV_STATE_DIR:", err)
			return 2
		}
	}
	c, err := client.Dial(client.Options{HostPort: envOr("TEMPORAL_ADDRESS", "127.0.0.1:7233"),
		Namespace: envOr("TEMPORAL_NAMESPACE", "default"), Identity: instance})
	if err != nil {
		fmt.Fprintln(os.Stderr, "kandev-launch-worker: Temporal:", err)
		return 1
	}
	defer c.Close()

	executor := &standIn{store: db, profiles: profiles, inherited: inherited(), agents: map[string]*agent{}}
	queue := envOr("KANDEV_TASK_QUEUE", "kandev-recovery")
	w, err := kandevlaunch.NewWorker(c, queue, host, executor, kandevlaunch.Options{MaxConcurrentLaunches: maxLaunches, Identity: instance})
	if err != nil {
		fmt.Fprintln(os.Stderr, "kandev-launch-worker:", err)
		return 2
	}
	if err := w.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "kandev-launch-worker:", err)
		return 1
	}
	fmt.Printf("Host         %s: queues %s, %s; worker instance %s\n", host,
		kandevlaunch.HostQueue(queue, host), kandevlaunch.LaunchQueue(queue, host), instance)
	fmt.Println("Ready.")

	ticker := time.NewTicker(beatEvery)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			if err := db.beat(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "kandev-launch-worker: presence beat:", err)
			}
		case <-ctx.Done():
			w.Stop()
			executor.stopAll()
			if err := db.leave(context.Background()); err != nil {
				fmt.Fprintln(os.Stderr, "kandev-launch-worker: presence:", err)
			} else if stateDir != "" {
				forgetSelf(stateDir, instance)
			}
			fmt.Println("Stopped.")
			return 0
		}
	}
}

// inherited: the variables of this process an agent gets, as the Java worker passes PATH, HOME, LANG,
// LC_ALL and TMPDIR (docs/agents.md); nothing else of this environment (its database URL) reaches an agent.
func inherited() []string {
	var env []string
	for _, name := range []string{"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR"} {
		if value, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+value)
		}
	}
	return env
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
