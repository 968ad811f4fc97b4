package store

import (
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
)

func TestTerminalCRUD(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	base := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
	ended := base.Add(-time.Hour)
	full := Terminal{
		ID: "term_full", PID: 42, Cwd: "/home/u", Argv: []string{"/bin/sh", "-l"},
		CreatedAt: base, RestoredFrom: "term_old", RestoredEndedAt: &ended, Title: "build",
	}

	created, err := s.CreateTerminal(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("create fills defaults and normalises times", func(t *testing.T) {
		if created.Status != api.StatusRunning {
			t.Errorf("status = %q, want running", created.Status)
		}
		if created.CreatedAt.Location() != time.UTC || !created.CreatedAt.Equal(base) {
			t.Errorf("created at = %v, want %v in UTC", created.CreatedAt, base)
		}
	})
	t.Run("get returns what create returned", func(t *testing.T) {
		got, err := s.GetTerminal(ctx, "term_full")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, created) {
			t.Errorf("get  %+v\nwant %+v", got, created)
		}
	})
	t.Run("nil argv reads back empty", func(t *testing.T) {
		if _, err := s.CreateTerminal(ctx, Terminal{ID: "term_bare", CreatedAt: base.Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetTerminal(ctx, "term_bare")
		if err != nil {
			t.Fatal(err)
		}
		if got.Argv == nil || len(got.Argv) != 0 {
			t.Errorf("argv = %#v, want empty non-nil", got.Argv)
		}
	})

	createErrs := []struct {
		name string
		in   Terminal
		want error
	}{
		{name: "duplicate id", in: Terminal{ID: "term_full"}, want: ErrConflict},
		{name: "empty id", in: Terminal{}},
		{name: "unknown status", in: Terminal{ID: "term_x", Status: "zombie"}},
	}
	for _, tt := range createErrs {
		t.Run("create: "+tt.name, func(t *testing.T) {
			_, err := s.CreateTerminal(ctx, tt.in)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("CreateTerminal = %v, want error %v", err, tt.want)
			}
		})
	}

	t.Run("get missing", func(t *testing.T) {
		if _, err := s.GetTerminal(ctx, "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	})
	t.Run("set pid", func(t *testing.T) {
		if err := s.SetTerminalPID(ctx, "term_bare", 777); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.GetTerminal(ctx, "term_bare"); got.PID != 777 {
			t.Errorf("pid = %d, want 777", got.PID)
		}
		if err := s.SetTerminalPID(ctx, "term_bare", 777); err != nil {
			t.Errorf("setting the same pid again: %v", err)
		}
		if err := s.SetTerminalPID(ctx, "nope", 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("missing: err = %v, want ErrNotFound", err)
		}
	})
	t.Run("list is ordered by creation time", func(t *testing.T) {
		if _, err := s.CreateTerminal(ctx, Terminal{ID: "term_early", CreatedAt: base.Add(-time.Minute)}); err != nil {
			t.Fatal(err)
		}
		ts, err := s.ListTerminals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, x := range ts {
			ids = append(ids, x.ID)
		}
		if want := []string{"term_early", "term_full", "term_bare"}; !reflect.DeepEqual(ids, want) {
			t.Errorf("order = %v, want %v", ids, want)
		}
	})
	t.Run("delete", func(t *testing.T) {
		if err := s.DeleteTerminal(ctx, "term_early"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetTerminal(ctx, "term_early"); !errors.Is(err, ErrNotFound) {
			t.Errorf("after delete: %v", err)
		}
		if err := s.DeleteTerminal(ctx, "term_early"); !errors.Is(err, ErrNotFound) {
			t.Errorf("second delete: err = %v, want ErrNotFound", err)
		}
	})
}

func TestTerminalToAPI(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	code := 3
	in := Terminal{
		ID: "t", PID: 9, Cwd: "/w", Argv: []string{"sh"}, Status: api.StatusExited, ExitCode: &code,
		ExitSignal: "SIGKILL", CreatedAt: now, EndedAt: &now, RestoredFrom: "t0", RestoredEndedAt: &now,
		Title: "dropped", PaneID: "pane_1",
	}
	got := in.ToAPI()
	want := api.Terminal{
		ID: "t", PID: 9, Cwd: "/w", Argv: []string{"sh"}, Status: api.StatusExited, ExitCode: &code,
		ExitSignal: "SIGKILL", CreatedAt: now, EndedAt: &now, RestoredFrom: "t0", RestoredEndedAt: &now,
		PaneID: "pane_1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ToAPI = %+v\nwant   %+v", got, want)
	}
	*got.ExitCode = 99
	got.Argv[0] = "changed"
	if *in.ExitCode != 3 || in.Argv[0] != "sh" {
		t.Error("ToAPI shares memory with the store model")
	}
}

func TestMarkTerminalEnded(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	endedAt := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, id := range []string{"running", "exited", "closing"} {
		if _, err := s.CreateTerminal(ctx, Terminal{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.MarkTerminalEnded(ctx, "exited", api.StatusExited, ptr(0), "", endedAt); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		id, status  string
		code        *int
		signal      string
		wantChanged bool
		wantErr     error
		wantAnyErr  bool
	}{
		{name: "running to exited", id: "running", status: api.StatusExited, code: ptr(137), signal: "SIGKILL", wantChanged: true},
		{name: "already ended is left alone", id: "exited", status: api.StatusLost},
		{name: "closed by the user", id: "closing", status: api.StatusClosed, wantChanged: true},
		{name: "missing terminal", id: "nope", status: api.StatusExited, wantErr: ErrNotFound},
		{name: "running is not an end status", id: "running", status: api.StatusRunning, wantAnyErr: true},
		{name: "unknown status", id: "running", status: "gone", wantAnyErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := s.GetTerminal(ctx, tt.id)
			changed, err := s.MarkTerminalEnded(ctx, tt.id, tt.status, tt.code, tt.signal, endedAt)
			switch {
			case tt.wantErr != nil || tt.wantAnyErr:
				if err == nil || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if changed != tt.wantChanged {
				t.Errorf("changed = %v, want %v", changed, tt.wantChanged)
			}
			got, err := s.GetTerminal(ctx, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if !changed {
				if !reflect.DeepEqual(got, before) {
					t.Errorf("unchanged row was modified: %+v -> %+v", before, got)
				}
				return
			}
			if got.Status != tt.status || !reflect.DeepEqual(got.ExitCode, tt.code) || got.ExitSignal != tt.signal ||
				got.EndedAt == nil || !got.EndedAt.Equal(endedAt) {
				t.Errorf("row = %+v", got)
			}
		})
	}
}

// Racing reports of one death (pty exit, disconnect sweep, boot) record
// exactly one of them.
func TestMarkTerminalEndedRace(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	if _, err := s.CreateTerminal(ctx, Terminal{ID: "t"}); err != nil {
		t.Fatal(err)
	}
	const n = 20
	var wins atomic.Int32
	var winner atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			changed, err := s.MarkTerminalEnded(ctx, "t", api.StatusExited, ptr(i), "", time.Now())
			if err != nil {
				t.Error(err)
				return
			}
			if changed {
				wins.Add(1)
				winner.Store(int32(i))
			}
		})
	}
	close(start)
	wg.Wait()
	if got := wins.Load(); got != 1 {
		t.Fatalf("%d callers changed the row, want exactly 1", got)
	}
	got, err := s.GetTerminal(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if got.ExitCode == nil || *got.ExitCode != int(winner.Load()) {
		t.Errorf("stored exit code %v, want the winner's %d", got.ExitCode, winner.Load())
	}
}

func TestSetTerminalCwdOnlyWhileRunning(t *testing.T) {
	s := openTest(t)
	ctx := t.Context()
	tm, err := s.CreateTerminal(ctx, Terminal{ID: "t_cwd", Cwd: "/a", Argv: []string{"sh"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetTerminalCwd(ctx, tm.ID, "/b"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetTerminal(ctx, tm.ID); got.Cwd != "/b" {
		t.Fatalf("cwd %q, want /b", got.Cwd)
	}
	if _, err := s.MarkTerminalEnded(ctx, tm.ID, api.StatusLost, nil, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTerminalCwd(ctx, tm.ID, "/c"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetTerminal(ctx, tm.ID); got.Cwd != "/b" {
		t.Fatalf("an ended terminal's cwd changed to %q", got.Cwd)
	}
}
