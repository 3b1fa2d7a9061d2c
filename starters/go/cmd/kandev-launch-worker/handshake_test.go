package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kdlbs/kandev-recovery/starters/go/kandevlaunch"
)

// The stand-in's ACP handshake against the project's test agent (a real child over stdio): each way
// a launch goes wrong is the contract's failure type, and a stored token is loaded, never replaced by
// a session/new. (The session/new path writes the token in PostgreSQL: KandevLaunchAdapterIT runs it.)
func TestTheHandshakeLoadsTheStoredTokenOrFailsWithTheContractsType(t *testing.T) {
	script, err := filepath.Abs("../../../../test-agent/bin/kandev-test-agent.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the test agent cannot run")
	}
	stateDir := t.TempDir()
	// A provider session the agent knows: created by a first agent with session/new.
	token := func() string {
		conn, done := agentConn(t, script, stateDir, "normal")
		defer done()
		var init initializeResult
		if err := conn.call(context.Background(), "initialize", map[string]any{"protocolVersion": 1}, &init); err != nil {
			t.Fatal(err)
		}
		var created struct {
			SessionID string `json:"sessionId"`
		}
		if err := conn.call(context.Background(), "session/new", map[string]any{"cwd": stateDir, "mcpServers": []any{}}, &created); err != nil {
			t.Fatal(err)
		}
		return created.SessionID
	}()

	cases := []struct {
		mode, token, wantType, wantMethod string
	}{
		{"normal", token, "", kandevlaunch.SessionLoad},
		{"resume", token, "", kandevlaunch.SessionResume},
		{"exit-before-initialize", token, kandevlaunch.AgentExitedBeforeInitialize, ""},
		{"reject-load", token, kandevlaunch.AgentSessionLoadRejected, ""},
		{"close-before-load", token, kandevlaunch.AgentTransportClosed, ""},
		{"no-load-session", token, kandevlaunch.AgentCannotLoadSessions, ""},
		{"reject-resume", token, kandevlaunch.AgentSessionLoadRejected, ""},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			conn, done := agentConn(t, script, stateDir, c.mode)
			defer done()
			s := &standIn{}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			outcome, err := s.handshake(ctx, nil, conn, "s-1", sessionRow{agentID: "kandev-test-agent", token: c.token}, stateDir, 7)
			if c.wantType == "" {
				if err != nil {
					t.Fatal(err)
				}
				if outcome.ProviderSessionID != c.token || !outcome.Loaded || outcome.SessionMethod != c.wantMethod {
					t.Errorf("outcome %+v, want %s of %s", outcome, c.wantMethod, c.token)
				}
				return
			}
			var failure *kandevlaunch.Failure
			if !errors.As(err, &failure) || failure.Type != c.wantType {
				t.Errorf("error %v, want a failure of type %s", err, c.wantType)
			}
		})
	}
}

// agentConn starts the test agent in mode and connects to its stdio; done ends it.
func agentConn(t *testing.T, script, stateDir, mode string) (*acpConn, func()) {
	t.Helper()
	cmd := exec.Command("node", script, "--mode="+mode, "--state-dir="+stateDir)
	cmd.Env = append(os.Environ(), "KANDEV_TEST_AGENT_STATE_DIR="+stateDir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return newACPConn(stdin, stdout), func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
}
