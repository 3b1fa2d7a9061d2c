package kandevbridge_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kdlbs/kandev-recovery/starters/go/kandevbridge"
)

// memoryBus records what is published, as Kandev's in-process bus hands it to a subscriber
// (synchronously, inside Publish); failAt makes the publish of that event id fail.
type memoryBus struct {
	mu        sync.Mutex
	published []kandevbridge.Event
	subjects  []string
	failAt    string
}

func (b *memoryBus) Publish(_ context.Context, subject string, event *kandevbridge.Event) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if event.ID == b.failAt {
		return errors.New("bus is closed")
	}
	b.published = append(b.published, *event)
	b.subjects = append(b.subjects, subject)
	return nil
}

func (b *memoryBus) ids() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var ids []string
	for _, e := range b.published {
		ids = append(ids, e.ID)
	}
	return ids
}

// outbox writes events into our schema's outbox as the Java worker's transitions do
// (KandevEnvelope, KandevOutboxStore.append).
type outbox struct {
	t            *testing.T
	ours, kandev string
}

func newOutbox(t *testing.T) *outbox {
	ours, kandev := schemas(t)
	return &outbox{t: t, ours: ours, kandev: kandev}
}

func (o *outbox) relay(bus kandevbridge.Bus, opts kandevbridge.RelayOptions) *kandevbridge.Relay {
	opts.Schema, opts.KandevSchema = o.ours, o.kandev
	r, err := kandevbridge.NewRelay(database, bus, opts)
	if err != nil {
		o.t.Fatal(err)
	}
	return r
}

// append stores one event of type with data and returns its id.
func (o *outbox) append(eventType string, data map[string]any) string {
	o.t.Helper()
	id := newUUID(o.t)
	envelope, err := json.Marshal(map[string]any{"id": id, "type": eventType, "subject": eventType,
		"source": "kandev-recovery", "timestamp": "2026-12-06T01:02:03.456789Z", "data": data})
	if err != nil {
		o.t.Fatal(err)
	}
	exec(o.t, "INSERT INTO "+o.ours+".kandev_event_outbox (event_id, subject, envelope) VALUES ($1, $2, $3)", id, eventType, string(envelope))
	return id
}

// session writes a task and its session in Kandev's tables, the row's updated_at at stamp.
func (o *outbox) session(taskID, sessionID, state string, stamp time.Time) {
	o.t.Helper()
	exec(o.t, "INSERT INTO "+o.kandev+".tasks (id, title, state, created_at, updated_at) VALUES ($1, 't', 'REVIEW', $2, $2)"+
		" ON CONFLICT (id) DO NOTHING", taskID, stamp)
	exec(o.t, "INSERT INTO "+o.kandev+".task_sessions (id, task_id, state, started_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
		sessionID, taskID, state, stamp)
}

func (o *outbox) sessionEvent(sessionID, from, to string, stamp time.Time) string {
	return o.append("task_session.state_changed", map[string]any{"task_id": "t-" + sessionID, "session_id": sessionID,
		"old_state": from, "new_state": to, "route_generation": 0, "foreground_activity": nil,
		"updated_at": stamp.UTC().Format(time.RFC3339Nano)})
}

func (o *outbox) taskUpdated(taskID, state string, stamp time.Time) string {
	return o.append("task.updated", map[string]any{"task_id": taskID, "state": state, "position": 3,
		"updated_at": stamp.UTC().Format(time.RFC3339Nano)})
}

func (o *outbox) markPublished(ago time.Duration, ids ...string) {
	o.t.Helper()
	for _, id := range ids {
		exec(o.t, "UPDATE "+o.ours+".kandev_event_outbox SET published_at = now() - make_interval(secs => $2) WHERE event_id = $1",
			id, ago.Seconds())
	}
}

func (o *outbox) unpublished() int {
	return count(o.t, "SELECT count(*) FROM "+o.ours+".kandev_event_outbox WHERE published_at IS NULL")
}

func TestTheRelayPublishesTheOutboxInOrderOnceAndMarksIt(t *testing.T) {
	needs(t)
	o := newOutbox(t)
	var want []string
	for i := range 5 { // more than a batch: the run goes on until the outbox is empty
		want = append(want, o.sessionEvent(fmt.Sprintf("s-%d", i%2), "FAILED", "STARTING", time.Now()))
	}
	bus := &memoryBus{}
	r := o.relay(bus, kandevbridge.RelayOptions{Batch: 2})

	n, err := r.RelayOnce(within(t, 30*time.Second))

	if err != nil || n != 5 || !slices.Equal(bus.ids(), want) {
		t.Fatalf("published %d (%v): %v, want %v", n, err, bus.ids(), want)
	}
	if left := o.unpublished(); left != 0 {
		t.Errorf("%d events left unpublished", left)
	}
	first := bus.published[0]
	if bus.subjects[0] != "task_session.state_changed" || first.Type != "task_session.state_changed" ||
		first.Subject != "task_session.state_changed" || first.Source != "kandev-recovery" ||
		!first.Timestamp.Equal(time.Date(2026, 12, 6, 1, 2, 3, 456789000, time.UTC)) {
		t.Errorf("envelope %+v on %s", first, bus.subjects[0])
	}
	// Kandev's subscribers read data as a map with JSON's types, as its NATS bus would decode it.
	if first.Data["session_id"] != "s-0" || first.Data["route_generation"] != float64(0) || first.Data["foreground_activity"] != nil {
		t.Errorf("data %#v", first.Data)
	}
	if n, err := r.RelayOnce(within(t, 30*time.Second)); n != 0 || err != nil {
		t.Errorf("a second run published %d (%v)", n, err)
	}
}

// A publish that fails keeps that event and the later ones for the next run; the earlier ones are
// marked, so they are not delivered twice.
func TestAFailedPublishLeavesTheRestForTheNextRunInOrder(t *testing.T) {
	needs(t)
	o := newOutbox(t)
	ids := []string{o.sessionEvent("s", "FAILED", "STARTING", time.Now()), o.sessionEvent("s", "STARTING", "WAITING_FOR_INPUT", time.Now()),
		o.taskUpdated("t-s", "REVIEW", time.Now())}
	bus := &memoryBus{failAt: ids[1]}
	r := o.relay(bus, kandevbridge.RelayOptions{})

	n, err := r.RelayOnce(within(t, 30*time.Second))
	if err == nil || n != 1 || o.unpublished() != 2 {
		t.Fatalf("first run: %d published, %v, %d left", n, err, o.unpublished())
	}
	bus.failAt = ""
	n, err = r.RelayOnce(within(t, 30*time.Second))

	if err != nil || n != 2 || !slices.Equal(bus.ids(), ids) {
		t.Errorf("second run: %d, %v: %v, want %v", n, err, bus.ids(), ids)
	}
}

// One relay at a time, whichever: the Java relay's lock (taken with its schema as current_schema)
// keeps this one out without making it wait.
func TestTheRelayStepsAsideWhileTheJavaRelayRelays(t *testing.T) {
	needs(t)
	o := newOutbox(t)
	id := o.sessionEvent("s", "FAILED", "STARTING", time.Now())
	ctx := within(t, 30*time.Second)
	java, err := database.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = java.Rollback() }()
	var got bool
	if _, err := java.ExecContext(ctx, "SET LOCAL search_path TO "+o.ours); err != nil {
		t.Fatal(err)
	}
	if err := java.QueryRowContext(ctx, "SELECT pg_try_advisory_xact_lock(hashtext('kandev_event_outbox'), hashtext(current_schema()))").Scan(&got); err != nil || !got {
		t.Fatalf("the Java relay's lock: %v, %v", got, err)
	}
	bus := &memoryBus{}
	r := o.relay(bus, kandevbridge.RelayOptions{})

	started := time.Now()
	n, err := r.RelayOnce(ctx)
	if err != nil || n != 0 || len(bus.ids()) != 0 || time.Since(started) > 5*time.Second {
		t.Fatalf("while the Java relay relays: %d, %v, after %s", n, err, time.Since(started))
	}
	_ = java.Rollback()
	if n, err := r.RelayOnce(ctx); err != nil || n != 1 || !slices.Equal(bus.ids(), []string{id}) {
		t.Errorf("after it: %d, %v, %v", n, err, bus.ids())
	}
}

// An event that cannot be decoded would hold back every later one: it is passed over.
func TestAnUndecodableEventIsPassedOver(t *testing.T) {
	needs(t)
	o := newOutbox(t)
	exec(t, "INSERT INTO "+o.ours+".kandev_event_outbox (event_id, subject, envelope) VALUES ($1, 'task.updated', '{\"id\":1')", newUUID(t))
	id := o.taskUpdated("t", "REVIEW", time.Now())
	bus := &memoryBus{}

	_, err := o.relay(bus, kandevbridge.RelayOptions{}).RelayOnce(within(t, 30*time.Second))

	if err != nil || !slices.Equal(bus.ids(), []string{id}) || o.unpublished() != 0 {
		t.Errorf("%v: %v, %d unpublished", err, bus.ids(), o.unpublished())
	}
}

// At boot, Kandev's fresh subscribers get the latest state of every session and task whose events
// were published while it was down, in outbox order; a row changed since, an older event, a
// task.state_changed and an event past the window are not sent again, and nothing unpublished is.
func TestAtBootTheLatestPublishedStatesArePublishedAgain(t *testing.T) {
	needs(t)
	o := newOutbox(t)
	stamp := time.Date(2026, 12, 6, 1, 0, 0, 123456000, time.UTC)
	later := stamp.Add(time.Second)
	o.session("t-a", "a", "WAITING_FOR_INPUT", later)
	o.session("t-b", "b", "RUNNING", later.Add(time.Minute)) // Kandev moved b on after our event
	o.session("t-c", "c", "WAITING_FOR_INPUT", later)
	aOld := o.sessionEvent("a", "FAILED", "STARTING", stamp)
	aLatest := o.sessionEvent("a", "STARTING", "WAITING_FOR_INPUT", later)
	bLatest := o.sessionEvent("b", "STARTING", "WAITING_FOR_INPUT", later)
	stateChanged := o.append("task.state_changed", map[string]any{"task_id": "t-a", "old_state": "IN_PROGRESS",
		"new_state": "REVIEW", "updated_at": later.Format(time.RFC3339Nano)})
	taskLatest := o.taskUpdated("t-a", "REVIEW", later)
	cLatest := o.sessionEvent("c", "STARTING", "WAITING_FOR_INPUT", later)
	o.markPublished(time.Minute, aOld, aLatest, bLatest, stateChanged, taskLatest)
	o.markPublished(3*time.Hour, cLatest) // published before the window
	pending := o.sessionEvent("a", "WAITING_FOR_INPUT", "STARTING", later)
	bus := &memoryBus{}
	r := o.relay(bus, kandevbridge.RelayOptions{RepublishWithin: time.Hour})

	n, err := r.Republish(within(t, 30*time.Second))

	if want := []string{aLatest, taskLatest}; err != nil || n != 2 || !slices.Equal(bus.ids(), want) {
		t.Errorf("republished %d (%v): %v, want %v", n, err, bus.ids(), want)
	}
	if left := count(t, "SELECT count(*) FROM "+o.ours+".kandev_event_outbox WHERE published_at IS NULL AND event_id = $1", pending); left != 1 {
		t.Errorf("the unpublished event was touched")
	}
}

// Run: the boot's republish first, then the backlog, then each new event within about a second.
func TestRunRepublishesThenRelays(t *testing.T) {
	needs(t)
	o := newOutbox(t)
	stamp := time.Date(2026, 12, 6, 1, 0, 0, 0, time.UTC)
	o.session("t-a", "a", "WAITING_FOR_INPUT", stamp)
	republished := o.sessionEvent("a", "STARTING", "WAITING_FOR_INPUT", stamp)
	o.markPublished(time.Minute, republished)
	backlog := o.taskUpdated("t-a", "REVIEW", stamp)
	bus := &memoryBus{}
	r := o.relay(bus, kandevbridge.RelayOptions{Every: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	waitFor(t, "the republish and the backlog", func() bool { return len(bus.ids()) == 2 })
	fresh := o.sessionEvent("a", "WAITING_FOR_INPUT", "RUNNING", stamp)
	waitFor(t, "an event committed while it runs", func() bool { return len(bus.ids()) == 3 })

	if want := []string{republished, backlog, fresh}; !slices.Equal(bus.ids(), want) {
		t.Errorf("published %v, want %v", bus.ids(), want)
	}
}

func TestPruneDeletesOnlyEventsPublishedLongAgo(t *testing.T) {
	needs(t)
	o := newOutbox(t)
	old := o.taskUpdated("t", "REVIEW", time.Now())
	recent := o.taskUpdated("t", "REVIEW", time.Now())
	o.taskUpdated("t", "REVIEW", time.Now()) // unpublished
	o.markPublished(25*time.Hour, old)
	o.markPublished(time.Hour, recent)

	n, err := o.relay(&memoryBus{}, kandevbridge.RelayOptions{}).Prune(within(t, 30*time.Second))

	if err != nil || n != 1 || count(t, "SELECT count(*) FROM "+o.ours+".kandev_event_outbox WHERE event_id = $1", old) != 0 ||
		count(t, "SELECT count(*) FROM "+o.ours+".kandev_event_outbox") != 2 {
		t.Errorf("pruned %d, %v", n, err)
	}
}

func TestARelayNeedsADatabaseABusAndTwoSchemas(t *testing.T) {
	lazy, err := sql.Open("pgx", "postgres://127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	if _, err := kandevbridge.NewRelay(nil, &memoryBus{}, kandevbridge.RelayOptions{}); err == nil {
		t.Error("no database accepted")
	}
	if _, err := kandevbridge.NewRelay(lazy, nil, kandevbridge.RelayOptions{}); err == nil {
		t.Error("no bus accepted")
	}
	if _, err := kandevbridge.NewRelay(lazy, &memoryBus{}, kandevbridge.RelayOptions{Schema: "public"}); err == nil {
		t.Error("our schema as Kandev's accepted")
	}
}

// newUUID is a random UUID from PostgreSQL.
func newUUID(t *testing.T) string {
	t.Helper()
	var id string
	if err := database.QueryRowContext(within(t, 10*time.Second), "SELECT gen_random_uuid()::text").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
