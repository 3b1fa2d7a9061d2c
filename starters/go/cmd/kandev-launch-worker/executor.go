package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/kdlbs/kandev-recovery/starters/go/kandevlaunch"
)

// profile is an agent's entry in KANDEV_AGENTS_FILE, as the Java worker reads it: the command and its
// environment (docs/agents.md). Only argv profiles are served here.
type profile struct {
	Argv []string          `json:"argv"`
	Env  map[string]string `json:"env"`
}

func loadProfiles(file string) (map[string]profile, error) {
	if file == "" {
		return map[string]profile{}, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var profiles map[string]profile
	if err := json.Unmarshal(data, &profiles); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for id, p := range profiles {
		if len(p.Argv) == 0 {
			return nil, fmt.Errorf("%s: agent %q has no argv (the stand-in runs argv profiles only)", file, id)
		}
	}
	return profiles, nil
}

// agent is one running agent process of a session.
type agent struct {
	executionID string
	cmd         *exec.Cmd
	stdin       io.WriteCloser
	exited      chan struct{}
	stopping    bool
}

// standIn is the stand-in for Kandev's executor: it starts the session's agent as its own child
// speaking ACP over stdio, as Kandev's agentctl would, and records it where the Java settle looks.
type standIn struct {
	store    *store
	profiles map[string]profile
	// inherited: the variables of this process an agent gets (as the Java worker's PATH, HOME, ...).
	inherited []string

	mu     sync.Mutex
	agents map[string]*agent
}

var _ kandevlaunch.Executor = (*standIn)(nil)

func (s *standIn) Launch(ctx context.Context, req kandevlaunch.LaunchRequest) (kandevlaunch.LaunchOutcome, error) {
	session, bound, err := s.store.session(ctx, req.SessionID)
	if errors.Is(err, errUnknownSession) {
		return kandevlaunch.LaunchOutcome{}, kandevlaunch.Failf(kandevlaunch.AgentProcessStartFailed, "unknown session %s", req.SessionID)
	}
	if err != nil {
		return kandevlaunch.LaunchOutcome{}, err
	}
	if bound != s.store.host {
		return kandevlaunch.LaunchOutcome{}, kandevlaunch.Failf(kandevlaunch.AgentHostUnavailable,
			"session %s belongs to host %s, and this launch worker serves host %s; nothing was launched", req.SessionID, bound, s.store.host)
	}
	p, ok := s.profiles[session.agentID]
	if !ok {
		return kandevlaunch.LaunchOutcome{}, kandevlaunch.Failf(kandevlaunch.AgentProcessStartFailed,
			"agent %q has no profile on this executor", session.agentID)
	}
	s.mu.Lock()
	previous := s.agents[req.SessionID]
	s.mu.Unlock()
	if previous != nil { // one agent per session
		s.stop(req.SessionID, previous, "stopped", "replaced by a new launch")
	}

	cwd := session.workspace
	if info, err := os.Stat(cwd); cwd == "" || err != nil || !info.IsDir() {
		cwd, _ = os.Getwd()
	}
	a, stdout, stderr, err := s.start(req.SessionID, p, cwd)
	if err != nil {
		return kandevlaunch.LaunchOutcome{}, kandevlaunch.Failf(kandevlaunch.AgentProcessStartFailed,
			"could not start agent %q %v: %v", session.agentID, p.Argv, err)
	}
	pid := a.cmd.Process.Pid
	if err := s.store.recordStarting(ctx, req.SessionID, a.executionID, pid); err != nil {
		s.stop(req.SessionID, a, "failed", "could not record the agent: "+err.Error())
		return kandevlaunch.LaunchOutcome{}, err
	}
	outcome, err := s.handshake(ctx, a, newACPConn(a.stdin, stdout), req.SessionID, session, cwd, req.Fence)
	if err != nil {
		if failure := (*kandevlaunch.Failure)(nil); errors.As(err, &failure) && failure.Type == kandevlaunch.AgentExitedBeforeInitialize {
			<-a.exited
			failure.Message += "; stderr: " + stderr.String()
		}
		s.stop(req.SessionID, a, "failed", "launch failed: "+err.Error())
		return kandevlaunch.LaunchOutcome{}, err
	}
	running, err := s.store.markRunning(ctx, req.SessionID, a.executionID, req.Fence)
	if err != nil || !running {
		s.stop(req.SessionID, a, "failed", "the resume gave up on this launch")
		if err != nil {
			return kandevlaunch.LaunchOutcome{}, err
		}
		return kandevlaunch.LaunchOutcome{}, kandevlaunch.Failf(kandevlaunch.AgentProcessStartFailed,
			"session %s is no longer STARTING under the resume's lock; its agent was stopped", req.SessionID)
	}
	outcome.PID = int64(pid)
	return outcome, nil
}

// start spawns the agent with its own pipes; it dies with this process (Pdeathsig) and with its stdin.
func (s *standIn) start(sessionID string, p profile, cwd string) (*agent, io.Reader, *bytes.Buffer, error) {
	cmd := exec.Command(p.Argv[0], p.Argv[1:]...)
	cmd.Dir = cwd
	cmd.Env = append([]string(nil), s.inherited...)
	for k, v := range p.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stderr := &bytes.Buffer{}
	cmd.Stderr = &lockedWriter{w: stderr}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	a := &agent{executionID: newID(), cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	stdout := out
	go func() {
		err := cmd.Wait()
		close(a.exited)
		s.mu.Lock()
		current := s.agents[sessionID] == a
		stopping := a.stopping
		if current {
			delete(s.agents, sessionID)
		}
		s.mu.Unlock()
		if current && !stopping {
			_ = s.store.markExited(context.Background(), sessionID, a.executionID, "failed", fmt.Sprintf("agent exited: %v", err))
		}
	}()
	s.mu.Lock()
	s.agents[sessionID] = a
	s.mu.Unlock()
	return a, stdout, stderr, nil
}

// handshake: initialize, then session/resume or session/load of the stored token, or session/new when
// none is stored; never a session/new in place of a refused load.
func (s *standIn) handshake(ctx context.Context, a *agent, conn *acpConn, sessionID string, session sessionRow, cwd string, fence int64) (kandevlaunch.LaunchOutcome, error) {
	var init initializeResult
	err := conn.call(ctx, "initialize", map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"fs": map[string]bool{"readTextFile": false, "writeTextFile": false}, "terminal": false},
		"clientInfo":         map[string]string{"name": "kandev-launch-worker", "version": "1"}}, &init)
	if err != nil {
		if ctx.Err() != nil {
			return kandevlaunch.LaunchOutcome{}, ctx.Err()
		}
		if errors.Is(err, errTransportClosed) {
			return kandevlaunch.LaunchOutcome{}, kandevlaunch.Failf(kandevlaunch.AgentExitedBeforeInitialize,
				"the agent exited before it answered initialize")
		}
		return kandevlaunch.LaunchOutcome{}, kandevlaunch.Failf(kandevlaunch.AgentInitializeFailed, "initialize: %v", err)
	}
	name := init.AgentInfo.Name
	params := map[string]any{"cwd": cwd, "mcpServers": []any{}}
	if session.token == "" {
		var created struct {
			SessionID string `json:"sessionId"`
		}
		if err := conn.call(ctx, "session/new", params, &created); err != nil {
			return kandevlaunch.LaunchOutcome{}, requestFailure(ctx, err, kandevlaunch.AgentSessionNewFailed, "session/new")
		}
		if created.SessionID == "" {
			return kandevlaunch.LaunchOutcome{}, kandevlaunch.Failf(kandevlaunch.AgentSessionNewFailed, "session/new named no session")
		}
		if err := s.store.replaceToken(ctx, sessionID, created.SessionID, fence); err != nil {
			return kandevlaunch.LaunchOutcome{}, err
		}
		return kandevlaunch.LaunchOutcome{ProviderSessionID: created.SessionID, AgentName: name, SessionMethod: kandevlaunch.SessionNew}, nil
	}
	params["sessionId"] = session.token
	method := kandevlaunch.SessionLoad
	switch {
	case init.AgentCapabilities.SessionCapabilities.Resume != nil:
		method = kandevlaunch.SessionResume
	case !init.AgentCapabilities.LoadSession:
		return kandevlaunch.LaunchOutcome{}, kandevlaunch.Failf(kandevlaunch.AgentCannotLoadSessions,
			"provider session %s is stored, but the agent declares neither loadSession nor sessionCapabilities.resume", session.token)
	}
	if err := conn.call(ctx, method, params, nil); err != nil {
		return kandevlaunch.LaunchOutcome{}, requestFailure(ctx, err, kandevlaunch.AgentSessionLoadRejected, method)
	}
	return kandevlaunch.LaunchOutcome{ProviderSessionID: session.token, Loaded: true, AgentName: name, SessionMethod: method}, nil
}

func requestFailure(ctx context.Context, err error, refused, method string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, errTransportClosed) {
		return kandevlaunch.Failf(kandevlaunch.AgentTransportClosed, "the transport closed before %s completed", method)
	}
	return kandevlaunch.Failf(refused, "%s: %v", method, err)
}

// Stop stops the session's agent if this process runs one (stdin closed, SIGTERM, SIGKILL after 5 s)
// and, called by a resume's StopAgent, withdraws the launch that resume recorded, as the Java stopAgent does.
func (s *standIn) Stop(ctx context.Context, sessionID string) error {
	s.mu.Lock()
	a := s.agents[sessionID]
	s.mu.Unlock()
	if a != nil {
		s.stop(sessionID, a, "stopped", "stopped by its resume's compensation or a new launch")
	}
	if activity.IsActivity(ctx) {
		run := activity.GetInfo(ctx).WorkflowExecution
		owner := run.ID + "/" + run.RunID
		return s.store.withdrawLaunch(ctx, sessionID, owner, "launch withdrawn by its resume's compensation ("+owner+")")
	}
	return nil
}

func (s *standIn) stop(sessionID string, a *agent, status, why string) {
	s.mu.Lock()
	a.stopping = true
	if s.agents[sessionID] == a {
		delete(s.agents, sessionID)
	}
	s.mu.Unlock()
	_ = a.stdin.Close()
	_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-a.exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
		<-a.exited
	}
	_ = s.store.markExited(context.Background(), sessionID, a.executionID, status, why)
}

// stopAll stops every agent (a clean stop of the worker).
func (s *standIn) stopAll() {
	s.mu.Lock()
	ids := make([]string, 0, len(s.agents))
	for id := range s.agents {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		_ = s.Stop(context.Background(), id)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w.Len() > 8192 {
		return len(b), nil
	}
	return l.w.Write(b)
}
