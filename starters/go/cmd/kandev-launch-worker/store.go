package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// store is what the stand-in reads and writes in the worker's schema (the mirror layout: the
// connection's search_path is KANDEV_DB_SCHEMA), by the rules the Java agent host keeps
// (docs/kandev.md "Two launch adapters"): the session's agent, workspace, host and stored token are
// read; the agent execution is recorded in executors_running under this worker instance, which beats
// in worker_presence, so the Java settle sees whether the agent lives; the token is written only after
// a session/new, under the resume's fence.
type store struct {
	db       *pgxpool.Pool
	host     string
	instance string
}

type sessionRow struct {
	agentID, workspace, token string
}

var errUnknownSession = errors.New("unknown session")

// session reads the session and binds it to this host when it is bound to none; a session bound to
// another host is returned with that host.
func (s *store) session(ctx context.Context, sessionID string) (sessionRow, string, error) {
	var row sessionRow
	var bound string
	err := s.db.QueryRow(ctx, `UPDATE task_sessions SET executor_host = CASE WHEN executor_host = '' THEN $2 ELSE executor_host END
		WHERE id = $1 RETURNING agent_id, workspace_path, executor_host,
		COALESCE((SELECT resume_token FROM executors_running WHERE session_id = $1), '')`, sessionID, s.host).
		Scan(&row.agentID, &row.workspace, &bound, &row.token)
	if errors.Is(err, pgx.ErrNoRows) {
		return row, "", errUnknownSession
	}
	return row, bound, err
}

// recordStarting makes executionID the session's current execution, starting, with its pid.
func (s *store) recordStarting(ctx context.Context, sessionID, executionID string, pid int) error {
	tag, err := s.db.Exec(ctx, `INSERT INTO executors_running (session_id, task_id, agent_id, agent_execution_id, host,
			worker_instance, pid, status, error_message, last_seen_at)
		SELECT id, task_id, agent_id, $2, $3, $4, $5, 'starting', '', now() FROM task_sessions WHERE id = $1
		ON CONFLICT (session_id) DO UPDATE SET agent_execution_id = EXCLUDED.agent_execution_id, host = EXCLUDED.host,
			worker_instance = EXCLUDED.worker_instance, pid = EXCLUDED.pid, status = EXCLUDED.status,
			error_message = '', last_seen_at = now(), updated_at = now()`,
		sessionID, executionID, s.host, s.instance, pid)
	if err == nil && tag.RowsAffected() != 1 {
		return errUnknownSession
	}
	return err
}

// markRunning: the execution serves the session, if it is still the current starting one and the
// session is still STARTING under the resume's lock of fence. False: the resume gave up on it.
func (s *store) markRunning(ctx context.Context, sessionID, executionID string, fence int64) (bool, error) {
	tag, err := s.db.Exec(ctx, `UPDATE executors_running e SET status = 'running', error_message = '', last_seen_at = now(),
			updated_at = now()
		WHERE e.session_id = $1 AND e.agent_execution_id = $2 AND e.status = 'starting'
		AND ($3 < 0 OR EXISTS (SELECT 1 FROM task_sessions s JOIN resume_locks l ON l.session_id = s.id
			WHERE s.id = e.session_id AND s.state = 'STARTING' AND l.fencing_token = $3))`, sessionID, executionID, fence)
	return err == nil && tag.RowsAffected() == 1, err
}

// markExited: the execution's process is gone (failed or stopped); nothing if another replaced it.
func (s *store) markExited(ctx context.Context, sessionID, executionID, status, message string) error {
	_, err := s.db.Exec(ctx, `UPDATE executors_running SET status = $3, error_message = $4, pid = NULL, last_seen_at = now(),
		updated_at = now() WHERE session_id = $1 AND agent_execution_id = $2`, sessionID, executionID, status, cut(message))
	return err
}

// withdrawLaunch: the execution recorded while lockOwner held the session's resume lock no longer
// claims the session (the Java ExecutorsRunningStore.withdrawLaunch): a compensation's stop that found
// no agent here still frees the session for the user's next Resume.
func (s *store) withdrawLaunch(ctx context.Context, sessionID, lockOwner, reason string) error {
	_, err := s.db.Exec(ctx, `UPDATE executors_running e SET status = 'failed', error_message = $3, updated_at = now()
		WHERE e.session_id = $1 AND e.status IN ('starting', 'running', 'ready')
		AND EXISTS (SELECT 1 FROM resume_locks l WHERE l.session_id = e.session_id AND l.owner = $2
			AND e.last_seen_at >= l.acquired_at)`, sessionID, lockOwner, reason)
	return err
}

// replaceToken stores the provider session a session/new created, in both copies, while the resume's
// lock of fence is held (the Java MirrorSessionIdentityStore's rule).
func (s *store) replaceToken(ctx context.Context, sessionID, token string, fence int64) error {
	return pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM task_sessions WHERE id = $1 FOR UPDATE`, sessionID); err != nil {
			return err
		}
		var holds bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM resume_locks WHERE session_id = $1 AND fencing_token = $2)`,
			sessionID, fence).Scan(&holds); err != nil {
			return err
		}
		if !holds {
			return fmt.Errorf("session %s: the resume lock of fence %d is no longer held; the new provider session is not stored", sessionID, fence)
		}
		if _, err := tx.Exec(ctx, `UPDATE executors_running SET resume_token = $2, updated_at = now() WHERE session_id = $1`,
			sessionID, token); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE task_sessions SET metadata = jsonb_set(metadata, '{acp}',
			CASE WHEN jsonb_typeof(metadata -> 'acp') = 'object' THEN metadata -> 'acp' ELSE '{}'::jsonb END
			|| jsonb_build_object('session_id', $2::text)), updated_at = now() WHERE id = $1`, sessionID, token)
		return err
	})
}

// beat records this worker instance alive (worker_presence), as a Java worker does.
func (s *store) beat(ctx context.Context) error {
	_, err := s.db.Exec(ctx, `INSERT INTO worker_presence (worker_instance, host) VALUES ($1, $2)
		ON CONFLICT (worker_instance) DO UPDATE SET last_seen_at = now()`, s.instance, s.host)
	return err
}

// leave records this instance stopped cleanly.
func (s *store) leave(ctx context.Context) error {
	return s.leaveInstance(ctx, s.instance)
}

// leaveInstance records instance (this one, or a predecessor known dead) no longer alive.
func (s *store) leaveInstance(ctx context.Context, instance string) error {
	_, err := s.db.Exec(ctx, `DELETE FROM worker_presence WHERE worker_instance = $1`, instance)
	return err
}

func cut(text string) string {
	if len(text) <= 2000 {
		return text
	}
	return text[:2000] + "…"
}
