package kandevbridge

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Event is Kandev's bus envelope (its bus.Event), as our outbox stores it: Kandev's side copies it
// into a bus.Event field by field. Data is the decoded JSON object, as Kandev's subscribers read
// an event's data (a map, numbers as float64), exactly what its NATS bus hands them too.
type Event struct {
	ID        string
	Type      string
	Subject   string
	Source    string
	Timestamp time.Time
	Data      map[string]any
}

// Bus is Kandev's event bus as the relay needs it: bus.EventBus's Publish. Kandev's in-process
// bus delivers to its subscribers inside Publish; its NATS bus publishes to the server.
type Bus interface {
	Publish(ctx context.Context, subject string, event *Event) error
}

// RelayOptions configures a Relay; zero values are the defaults.
type RelayOptions struct {
	// Schema is our schema (the workers' KANDEV_DB_SCHEMA); default "kandev_recovery".
	Schema string
	// KandevSchema is the schema of Kandev's tables (the workers' KANDEV_KANDEV_SCHEMA); default "public".
	KandevSchema string
	// Every is how often Run relays; default 1 s (the Java relay's pace).
	Every time.Duration
	// Batch is how many events one transaction publishes; default 200.
	Batch int
	// KeepPublished is how long published events are kept before Run prunes them; default a day.
	KeepPublished time.Duration
	// RepublishWithin is how far back Republish looks for published events (the longest Kandev
	// downtime it repairs); default KeepPublished: everything still in the outbox.
	RepublishWithin time.Duration
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Relay publishes our outbox of Kandev's bus events (kandev_event_outbox, written by the Java
// worker in the "kandev" layout with KANDEV_BUS_RELAY=kandev) on Kandev's own bus, from inside
// Kandev's process: in seq order, so the events of each session and task arrive in commit order,
// at least once (an event is marked published only after Publish returned), one relay at a time
// (the same advisory lock as the Java relay, which stays off then). At Kandev's boot, Republish
// first hands Kandev's fresh subscribers the latest state of every session and task whose events
// were published while it was down.
type Relay struct {
	db   *sql.DB
	bus  Bus
	opts RelayOptions
	// outbox is our table, schema-qualified and quoted.
	outbox string
	// tasks and sessions are Kandev's tables, schema-qualified and quoted.
	tasks, sessions string
	log             *slog.Logger
}

// Event types the relay republishes at boot: each carries the whole state of its row.
const (
	sessionStateChanged = "task_session.state_changed"
	taskUpdated         = "task.updated"
)

// NewRelay is a relay reading the outbox through db (a database/sql pool of Kandev's database, e.g.
// Kandev's own, with the pgx driver) and publishing on bus.
func NewRelay(db *sql.DB, bus Bus, opts RelayOptions) (*Relay, error) {
	if db == nil || bus == nil {
		return nil, errors.New("a relay needs a database and a bus")
	}
	if opts.Schema == "" {
		opts.Schema = "kandev_recovery"
	}
	if opts.KandevSchema == "" {
		opts.KandevSchema = "public"
	}
	if opts.Schema == opts.KandevSchema {
		return nil, fmt.Errorf("our schema and Kandev's must differ, both are %q", opts.Schema)
	}
	if opts.Every <= 0 {
		opts.Every = time.Second
	}
	if opts.Batch <= 0 {
		opts.Batch = 200
	}
	if opts.KeepPublished <= 0 {
		opts.KeepPublished = 24 * time.Hour
	}
	if opts.RepublishWithin <= 0 {
		opts.RepublishWithin = opts.KeepPublished
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Relay{db: db, bus: bus, opts: opts, log: opts.Logger,
		outbox:   quote(opts.Schema) + ".kandev_event_outbox",
		tasks:    quote(opts.KandevSchema) + ".tasks",
		sessions: quote(opts.KandevSchema) + ".task_sessions"}, nil
}

func quote(identifier string) string {
	return `"` + strings.ReplaceAll(identifier, `"`, `""`) + `"`
}

// pending is one outbox row.
type pending struct {
	seq      int64
	subject  string
	envelope string
}

// RelayOnce publishes what waits in the outbox, batch after batch, until it is empty or another
// relay has it; it returns how many events it published. An event that cannot be decoded is
// logged and passed over (it would otherwise hold back every later one, as the Java relay passes
// over one the server refuses). A Publish that fails stops the run: the events before it are
// marked published, it and the later ones stay for the next run.
func (r *Relay) RelayOnce(ctx context.Context) (int, error) {
	total := 0
	for {
		n, full, err := r.relayBatch(ctx)
		total += n
		if err != nil || !full {
			return total, err
		}
	}
}

// relayBatch publishes one batch in one transaction; full is true when there may be more.
func (r *Relay) relayBatch(ctx context.Context) (published int, full bool, err error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, err
	}
	defer func() { _ = tx.Rollback() }()
	relay, err := r.becomeTheRelay(ctx, tx)
	if err != nil || !relay {
		return 0, false, err
	}
	events, err := r.nextUnpublished(ctx, tx)
	if err != nil {
		return 0, false, err
	}
	var done []int64
	var publishErr error
	for _, row := range events {
		if publishErr = r.publishRow(ctx, row); publishErr != nil {
			break
		}
		done = append(done, row.seq)
	}
	if err := r.markPublished(ctx, tx, done); err != nil {
		return 0, false, err
	}
	if err := tx.Commit(); err != nil {
		return 0, false, err
	}
	if publishErr != nil {
		return len(done), false, publishErr
	}
	return len(done), len(events) == r.opts.Batch, nil
}

// becomeTheRelay takes the Java relay's lock (KandevOutboxStore.becomeTheRelay, whose
// current_schema() is our schema on the worker's connections) for this transaction, without waiting.
func (r *Relay) becomeTheRelay(ctx context.Context, tx *sql.Tx) (bool, error) {
	var got bool
	err := tx.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock(hashtext('kandev_event_outbox'), hashtext($1))",
		r.opts.Schema).Scan(&got)
	return got, err
}

func (r *Relay) nextUnpublished(ctx context.Context, tx *sql.Tx) ([]pending, error) {
	rows, err := tx.QueryContext(ctx, "SELECT seq, subject, envelope FROM "+r.outbox+
		" WHERE published_at IS NULL ORDER BY seq LIMIT $1", r.opts.Batch)
	if err != nil {
		return nil, err
	}
	return scanPending(rows)
}

// markPublished is KandevOutboxStore.markPublished.
func (r *Relay) markPublished(ctx context.Context, tx *sql.Tx, seqs []int64) error {
	if len(seqs) == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, "UPDATE "+r.outbox+" SET published_at = now() WHERE seq = ANY($1) AND published_at IS NULL", seqs)
	return err
}

// publishRow publishes one stored envelope on its subject; one that does not decode is logged and
// counts as published.
func (r *Relay) publishRow(ctx context.Context, row pending) error {
	event, err := decodeEnvelope(row.envelope)
	if err != nil {
		r.log.Error("kandev-recovery outbox event cannot be decoded: not published", "seq", row.seq,
			"subject", row.subject, "error", err)
		return nil
	}
	if err := r.bus.Publish(ctx, row.subject, event); err != nil {
		return fmt.Errorf("publishing outbox event %d (%s): %w", row.seq, row.subject, err)
	}
	return nil
}

// envelope is the stored JSON of KandevEnvelope.
type envelope struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Subject   string          `json:"subject"`
	Source    string          `json:"source"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

func decodeEnvelope(stored string) (*Event, error) {
	var e envelope
	if err := json.Unmarshal([]byte(stored), &e); err != nil {
		return nil, err
	}
	if e.ID == "" || e.Type == "" {
		return nil, errors.New("the envelope has no id or type")
	}
	var data map[string]any
	if err := json.Unmarshal(e.Data, &data); err != nil || data == nil {
		return nil, fmt.Errorf("the envelope's data is no JSON object: %v", err)
	}
	return &Event{ID: e.ID, Type: e.Type, Subject: e.Subject, Source: e.Source, Timestamp: e.Timestamp, Data: data}, nil
}

// Republish publishes again, once, the latest published task_session.state_changed of every
// session and the latest published task.updated of every task whose events were published within
// RepublishWithin, in their outbox order, skipping any whose row has changed since (its
// updated_at differs: a later writer, Kandev itself included, published a newer state). Kandev
// calls it at boot, after its subscribers are up and before the first RelayOnce: events a relay
// published while Kandev was down (the Java relay on NATS with no Kandev subscriber, or an
// in-process relay that died between Publish and the mark) never reached its status summaries or
// its UI. A repeat of a state Kandev already has changes nothing; unpublished events are
// RelayOnce's. It returns how many events it published.
func (r *Relay) Republish(ctx context.Context) (int, error) {
	latest, err := r.latestPublished(ctx)
	if err != nil {
		return 0, err
	}
	published := 0
	for _, row := range latest {
		event, err := decodeEnvelope(row.envelope)
		if err != nil {
			continue
		}
		current, err := r.rowUnchanged(ctx, event)
		if err != nil {
			return published, err
		}
		if !current {
			continue
		}
		if err := r.bus.Publish(ctx, row.subject, event); err != nil {
			return published, fmt.Errorf("republishing outbox event %d (%s): %w", row.seq, row.subject, err)
		}
		published++
	}
	return published, nil
}

// latestPublished is the newest published event of each session (state) and each task (update)
// within the window, oldest first.
func (r *Relay) latestPublished(ctx context.Context) ([]pending, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT seq, subject, envelope FROM (
	    SELECT DISTINCT ON (subject, envelope::jsonb->'data'->>(CASE WHEN subject = $1 THEN 'session_id' ELSE 'task_id' END))
	           seq, subject, envelope
	      FROM `+r.outbox+`
	     WHERE subject IN ($1, $2) AND published_at IS NOT NULL
	       AND published_at >= now() - make_interval(secs => $3)
	     ORDER BY subject, envelope::jsonb->'data'->>(CASE WHEN subject = $1 THEN 'session_id' ELSE 'task_id' END), seq DESC
	) latest ORDER BY seq`, sessionStateChanged, taskUpdated, r.opts.RepublishWithin.Seconds())
	if err != nil {
		return nil, err
	}
	return scanPending(rows)
}

// rowUnchanged tells whether the event's row still has the updated_at the event carries.
func (r *Relay) rowUnchanged(ctx context.Context, event *Event) (bool, error) {
	table, key := r.sessions, "session_id"
	if event.Type == taskUpdated {
		table, key = r.tasks, "task_id"
	}
	id, _ := event.Data[key].(string)
	stamp, _ := event.Data["updated_at"].(string)
	carried, err := time.Parse(time.RFC3339Nano, stamp)
	if id == "" || err != nil {
		return false, nil
	}
	var updated time.Time
	err = r.db.QueryRowContext(ctx, "SELECT updated_at FROM "+table+" WHERE id = $1", id).Scan(&updated)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// Kandev's updated_at is a naive UTC timestamp with microseconds; the event carries it as UTC.
	return sameInstant(updated, carried), nil
}

func sameInstant(naiveUTC, carried time.Time) bool {
	asUTC := time.Date(naiveUTC.Year(), naiveUTC.Month(), naiveUTC.Day(), naiveUTC.Hour(), naiveUTC.Minute(),
		naiveUTC.Second(), naiveUTC.Nanosecond(), time.UTC)
	return asUTC.Truncate(time.Microsecond).Equal(carried.UTC().Truncate(time.Microsecond))
}

// Prune deletes the events published more than KeepPublished ago, as the Java relay does (which is
// off when this relay runs); it returns how many.
func (r *Relay) Prune(ctx context.Context) (int, error) {
	total := 0
	for {
		res, err := r.db.ExecContext(ctx, "DELETE FROM "+r.outbox+" WHERE seq IN (SELECT seq FROM "+r.outbox+
			" WHERE published_at < now() - make_interval(secs => $1) ORDER BY seq LIMIT 1000)", r.opts.KeepPublished.Seconds())
		if err != nil {
			return total, err
		}
		n, _ := res.RowsAffected()
		total += int(n)
		if n < 1000 {
			return total, nil
		}
	}
}

// Run is the relay of a Kandev process: Republish once, then RelayOnce every Every and Prune every
// hour, until ctx ends. A failing run is logged once per outage and retried at the next tick (the
// events wait in the outbox); a Republish that fails is logged and not retried.
func (r *Relay) Run(ctx context.Context) {
	if n, err := r.Republish(ctx); err != nil {
		r.log.Warn("kandev-recovery relay: republishing the latest states at boot failed", "error", err)
	} else {
		r.log.Info("kandev-recovery relay: latest states republished at boot", "events", n)
	}
	tick := time.NewTicker(r.opts.Every)
	defer tick.Stop()
	lastPrune := time.Time{}
	outage := false
	for {
		if _, err := r.RelayOnce(ctx); err != nil && ctx.Err() == nil {
			if !outage {
				r.log.Warn("kandev-recovery relay: cannot publish the outbox; its events wait", "error", err)
			}
			outage = true
		} else if outage && err == nil {
			r.log.Info("kandev-recovery relay: the outbox is published again")
			outage = false
		}
		if time.Since(lastPrune) >= time.Hour {
			if _, err := r.Prune(ctx); err == nil {
				lastPrune = time.Now()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// scanPending reads the rows of a query of seq, subject and envelope, and closes them.
func scanPending(rows *sql.Rows) ([]pending, error) {
	defer rows.Close()
	var out []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.seq, &p.subject, &p.envelope); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
