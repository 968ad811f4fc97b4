package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestHosts(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	if _, err := s.AddHost(ctx, Host{Name: "box", SSH: "me@box:2222", RemoteHome: "/srv/r"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddHost(ctx, Host{Name: "box", SSH: "other"}); !errors.Is(err, ErrConflict) {
		t.Errorf("duplicate host: %v, want ErrConflict", err)
	} else if want := `host "box" already exists (reprise hosts remove box first)`; err.Error() != want {
		// One sentence for the user, not one ending in ": conflict".
		t.Errorf("duplicate host says %q, want %q", err, want)
	}
	for _, bad := range []string{"", "local", "a b", "-x", "a/b"} {
		if _, err := s.AddHost(ctx, Host{Name: bad, SSH: "x"}); err == nil {
			t.Errorf("host name %q accepted", bad)
		}
	}
	h, err := s.GetHost(ctx, "box")
	if err != nil || h.SSH != "me@box:2222" || h.RemoteHome != "/srv/r" {
		t.Fatalf("GetHost = %+v, %v", h, err)
	}
	// A host with a running terminal cannot be forgotten.
	if _, err := s.CreateTerminal(ctx, Terminal{ID: "t_1", Host: "box", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveHost(ctx, "box"); err == nil {
		t.Error("removed a host with a running terminal")
	}
	if tm, err := s.GetTerminal(ctx, "t_1"); err != nil || tm.Host != "box" {
		t.Errorf("terminal host = %q, %v", tm.Host, err)
	}
	if _, err := s.MarkTerminalEnded(ctx, "t_1", "exited", nil, "", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveHost(ctx, "box"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveHost(ctx, "box"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second remove: %v, want ErrNotFound", err)
	}
	if hs, err := s.ListHosts(ctx); err != nil || len(hs) != 0 {
		t.Errorf("ListHosts = %v, %v", hs, err)
	}
}
