package host

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/store"
)

// A store as a long-used Reprise has it: 1,000 panes (125 tabs of 8) and a
// history of 100,000 ended terminals, each with its binding and session
// row. The pane terminals, as after a reboot: 600 live Claude bindings
// (500 with a saved transcript), 200 interrupted ones (100 with a
// transcript), 100 shells cold-respawned from an old agent terminal, 100
// plain shells. The anchor is the same 1,000 panes with no history.
const (
	benchPanes   = 1000
	benchHistory = 100_000
)

type benchStore struct {
	home     paths.Home
	st       *store.Store
	env      []string
	history  []string // ids of the ended terminals not in a pane
	wantActs map[string]int
}

var (
	benchStoresOnce sync.Once
	benchStores     [2]*benchStore // [0]: panes only, [1]: panes and history
	benchStoresErr  error
)

// bigStores seeds both stores once per test binary, in the directory
// TestMain removes at exit.
func bigStores(tb testing.TB) (small, big *benchStore) {
	tb.Helper()
	benchStoresOnce.Do(func() {
		// Not beside the binary: with REPRISE_TEST_BIN (make bench) that is build/bin, which
		// outlives the run, and a second run seeded the same rows into the first run's stores.
		root := filepath.Join(binDir, "stores")
		for i, history := range []int{0, benchHistory} {
			start := time.Now()
			benchStores[i], benchStoresErr = seedStore(filepath.Join(root, fmt.Sprint(history)), history)
			if benchStoresErr != nil {
				return
			}
			tb.Logf("seeded %d panes + %d ended terminals in %v", benchPanes, history, time.Since(start).Round(time.Millisecond))
		}
	})
	if benchStoresErr != nil {
		tb.Fatal(benchStoresErr)
	}
	return benchStores[0], benchStores[1]
}

func seedStore(dir string, history int) (*benchStore, error) {
	ctx := context.Background()
	home := paths.Home{Dir: dir}
	userHome := filepath.Join(dir, "u")
	work := filepath.Join(dir, "work")
	for _, d := range []string{userHome, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	// The schema comes from the store's own migrations.
	st, err := store.Open(ctx, home.DB(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return nil, err
	}
	if err := st.SyncBuiltins(ctx, catalogRows()); err != nil {
		return nil, err
	}
	bs := &benchStore{home: home, st: st, wantActs: map[string]int{},
		env: []string{"PATH=" + fakeBin + ":/usr/bin:/bin", "HOME=" + userHome}}

	// Rows go in through database/sql, one transaction of prepared inserts
	// per table: the store's API writes one row per transaction, which
	// would take minutes for this many.
	db, err := sql.Open("sqlite3", "file:"+home.DB()+"?_foreign_keys=on&_busy_timeout=5000&_loc=UTC")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	insT, err := tx.Prepare(`INSERT INTO terminals (id, pid, cwd, argv, status, exit_code, exit_signal, created_at, ended_at, restored_from, restored_ended_at, title)
		VALUES (?, 0, ?, '[]', ?, NULL, '', ?, ?, ?, NULL, '')`)
	if err != nil {
		return nil, err
	}
	insB, err := tx.Prepare(`INSERT INTO bindings (terminal_id, agent_id, session_id, cwd, started_at, last_event_at, last_event, prompted, ended_at, end_reason, version, transcript)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, '')`)
	if err != nil {
		return nil, err
	}
	insS, err := tx.Prepare(`INSERT INTO agent_sessions (agent_id, session_id, cwd, terminal_id, first_seen_at, first_prompt_at, last_activity_at, ended_at, end_reason, last_outcome)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '')`)
	if err != nil {
		return nil, err
	}
	t0 := time.Now().UTC().Add(-time.Duration(history+benchPanes) * time.Minute)
	binding := func(tid, agent, sid string, at time.Time, prompted bool, ended *time.Time, reason string) error {
		if _, err := insB.Exec(tid, agent, sid, work, at, at, "prompt", prompted, ended, reason); err != nil {
			return err
		}
		_, err := insS.Exec(agent, sid, work, tid, at, at, at, ended, reason)
		return err
	}
	reasons := []string{bindings.TerminalExited, bindings.TerminalExited, bindings.Detached, bindings.Disposed, bindings.Resumed}
	agents := []string{"claude", "claude", "codex"}
	for i := 0; i < history; i++ {
		tid := fmt.Sprintf("h%06d", i)
		at := t0.Add(time.Duration(i) * time.Minute)
		end := at.Add(30 * time.Second)
		if _, err := insT.Exec(tid, work, api.StatusExited, at, end, ""); err != nil {
			return nil, err
		}
		if err := binding(tid, agents[i%3], fmt.Sprintf("00000000-0000-4000-8000-%012d", i), at, i%7 != 0, &end, reasons[i%5]); err != nil {
			return nil, err
		}
		bs.history = append(bs.history, tid)
	}
	var paneTerms []string
	transcript := func(sid string) error {
		p := filepath.Join(userHome, ".claude", "projects", nonAlnum.ReplaceAllString(work, "-"), sid+".jsonl")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(`{"type":"user"}`+"\n"), 0o644)
	}
	for i := 0; i < benchPanes; i++ {
		tid := fmt.Sprintf("p%06d", i)
		at := t0.Add(time.Duration(history+i) * time.Minute)
		sid := fmt.Sprintf("10000000-0000-4000-8000-%012d", i)
		from := ""
		if i >= 800 && i < 900 && history > 0 {
			from = bs.history[(i*997)%history] // a shell cold-respawned from an old terminal
		}
		if _, err := insT.Exec(tid, work, api.StatusRunning, at, nil, from); err != nil {
			return nil, err
		}
		paneTerms = append(paneTerms, tid)
		switch {
		case i < 600: // live agent, killed by the reboot
			if err := binding(tid, "claude", sid, at, true, nil, bindings.Live); err != nil {
				return nil, err
			}
			if i%6 != 0 {
				if err := transcript(sid); err != nil {
					return nil, err
				}
				bs.wantActs[ActionResume]++
			} else {
				bs.wantActs[ActionCannot]++
			}
		case i < 800: // interrupted before
			end := at.Add(time.Second)
			if err := binding(tid, "claude", sid, at, true, &end, bindings.TerminalExited); err != nil {
				return nil, err
			}
			if i%2 == 0 {
				if err := transcript(sid); err != nil {
					return nil, err
				}
				bs.wantActs[ActionResume]++
			} else {
				bs.wantActs[ActionCannot]++
			}
		default:
			bs.wantActs["shell"]++ // fresh, or whatever its old terminal's binding says
		}
	}
	for _, s := range []*sql.Stmt{insT, insB, insS} {
		s.Close()
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	if _, err := db.Exec("ANALYZE"); err != nil {
		return nil, err
	}

	l := &api.Layout{}
	for t := 0; t*8 < len(paneTerms); t++ {
		split := &api.Node{Type: api.NodeSplit, ID: fmt.Sprintf("s%03d", t), Direction: api.DirRow}
		for k := 0; k < 8; k++ {
			split.Children = append(split.Children, &api.Node{Type: api.NodePane, ID: fmt.Sprintf("pane%03d-%d", t, k), TerminalID: paneTerms[t*8+k]})
			split.Sizes = append(split.Sizes, 0.125)
		}
		l.Tabs = append(l.Tabs, &api.Tab{ID: fmt.Sprintf("tab%03d", t), Root: split, FocusedPaneID: split.Children[0].ID})
	}
	l.ActiveTabID = l.Tabs[0].ID
	if _, err := st.SaveLayout(ctx, l, 0); err != nil {
		return nil, err
	}
	return bs, nil
}

func (bs *benchStore) forecast(tb testing.TB) []PaneForecast {
	fcs, err := Forecast(context.Background(), bs.st, ForecastEnv{HomeDir: bs.home.Dir, Env: bs.env})
	if err != nil {
		tb.Fatal(err)
	}
	return fcs
}

// checkForecast: one line per pane, and the agent panes' actions as seeded.
func (bs *benchStore) checkForecast(tb testing.TB, fcs []PaneForecast) {
	tb.Helper()
	got := map[string]int{}
	for _, f := range fcs {
		if f.PaneID == "" || f.Reason == "" {
			tb.Fatalf("forecast line %+v", f)
		}
		if f.Action == ActionResume && (len(f.Argv) < 2 || f.Argv[len(f.Argv)-2] != "--resume") {
			tb.Fatalf("resume argv %v", f.Argv)
		}
		got[f.Action]++
	}
	shells := got[ActionFresh]
	for _, a := range []string{ActionResume, ActionCannot} {
		shells += got[a] - bs.wantActs[a]
	}
	if len(fcs) != benchPanes || got[ActionResume] < bs.wantActs[ActionResume] || got[ActionCannot] < bs.wantActs[ActionCannot] || shells != bs.wantActs["shell"] {
		tb.Fatalf("forecast of %d panes: %v, want at least %v", len(fcs), got, bs.wantActs)
	}
}

// BenchmarkRestoreCheck is `reprise restore-check` (host.Forecast, daemon
// down: every pane is computed) on 1,000 panes with 100,000 ended
// bindings in the history; the anchor is the same panes with no history.
func BenchmarkRestoreCheck(b *testing.B) {
	small, big := bigStores(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fcs := big.forecast(b)
		b.StopTimer()
		big.checkForecast(b, fcs)
		b.StartTimer()
	}
	b.StopTimer()
	per := b.Elapsed() / time.Duration(b.N)
	const anchorRuns = 3
	start := time.Now()
	for i := 0; i < anchorRuns; i++ {
		small.checkForecast(b, small.forecast(b))
	}
	anchor := time.Since(start) / anchorRuns // includes the (cheap) check
	b.ReportMetric(float64(per.Microseconds())/1000, "forecast-ms")
	b.ReportMetric(float64(anchor.Microseconds())/1000, "no-history-ms")
}

func (bs *benchStore) host() *Host {
	return newHost(Config{Home: bs.home, BaseEnv: bs.env, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, bs.st)
}

// BenchmarkResumeCandidate is the per-terminal resume-candidate check on
// the big store, over its ended terminals in turn: the binding read plus
// Host.candidate (µs per query), and Host.Binding, the API's answer for one
// terminal (candidate, pane to resume into, outcome). The anchor is the
// same queries on the store with no history (its pane terminals).
func BenchmarkResumeCandidate(b *testing.B) {
	small, big := bigStores(b)
	ctx := context.Background()
	hb, hs := big.host(), small.host()
	query := func(h *Host, tid string) bool {
		bd, err := h.store.GetBinding(ctx, tid)
		if err != nil {
			b.Fatal(err)
		}
		ok, _ := h.candidate(ctx, bd)
		return ok
	}
	// Correctness: no history row is a candidate (the truth table offers
	// the interrupted, prompted ones, but none has a saved transcript, and
	// candidate says so); on the small store the interrupted panes with a
	// transcript are, those without are not.
	for _, tid := range big.history[:100] {
		bd, err := big.st.GetBinding(ctx, tid)
		if err != nil {
			b.Fatal(err)
		}
		ok, why := hb.candidate(ctx, bd)
		if ok || bindings.Candidate(&bd, true) != (why != "") || query(hb, tid) {
			b.Fatalf("%s: candidate %v %q for %+v", tid, ok, why, bd)
		}
	}
	if !query(hs, "p000600") || query(hs, "p000601") || query(hs, "p000000") {
		b.Fatal("small store: wrong candidates")
	}
	timeIt := func(h *Host, ids []string, n int, f func(*Host, string)) time.Duration {
		start := time.Now()
		for i := 0; i < n; i++ {
			f(h, ids[(i*7919)%len(ids)])
		}
		return time.Since(start) / time.Duration(n)
	}
	apiBinding := func(h *Host, tid string) {
		a, err := h.Binding(ctx, tid)
		if err != nil || a.TerminalID != tid {
			b.Fatalf("binding %s: %+v %v", tid, a, err)
		}
	}
	candidate := func(h *Host, tid string) { query(h, tid) }
	smallIDs := make([]string, 0, 800)
	for i := 0; i < 800; i++ {
		smallIDs = append(smallIDs, fmt.Sprintf("p%06d", i))
	}
	b.ResetTimer()
	per := timeIt(hb, big.history, b.N, candidate)
	b.StopTimer()
	n := 2000
	b.ReportMetric(float64(per.Nanoseconds())/1000, "candidate-us")
	b.ReportMetric(float64(timeIt(hs, smallIDs, n, candidate).Nanoseconds())/1000, "no-history-candidate-us")
	apiPer := timeIt(hb, big.history, 200, apiBinding)
	b.ReportMetric(float64(apiPer.Nanoseconds())/1000, "binding-us")
	b.ReportMetric(float64(timeIt(hs, smallIDs, 200, apiBinding).Nanoseconds())/1000, "no-history-binding-us")
}

func percentile(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}
