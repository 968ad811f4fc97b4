package store

import (
	"context"
	"fmt"
	"testing"
)

// Marks of relayed records are per host, idempotent, and bounded: the
// oldest of a host go beyond relayedKeep, another host's stay.
func TestRelayMarks(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	a := RelayMark{Host: "box", Name: "00000000000000000001-aa.json"}
	if ok, err := s.RelayApplied(ctx, a); err != nil || ok {
		t.Fatalf("before: %v, %v", ok, err)
	}
	for i := 0; i < 2; i++ {
		if err := s.MarkRelayed(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.RelayApplied(ctx, a); err != nil || !ok {
		t.Fatalf("after: %v, %v", ok, err)
	}
	if ok, _ := s.RelayApplied(ctx, RelayMark{Host: "other", Name: a.Name}); ok {
		t.Fatal("a mark of box counted for another host")
	}
	if err := s.MarkRelayed(ctx, RelayMark{Host: "other", Name: "keep.json"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < relayedKeep; i++ {
		if err := s.MarkRelayed(ctx, RelayMark{Host: "box", Name: fmt.Sprintf("n%05d.json", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if ok, _ := s.RelayApplied(ctx, a); ok {
		t.Error("the oldest mark outlived the bound")
	}
	if ok, _ := s.RelayApplied(ctx, RelayMark{Host: "box", Name: fmt.Sprintf("n%05d.json", 0)}); !ok {
		t.Error("a mark within the bound went")
	}
	if ok, _ := s.RelayApplied(ctx, RelayMark{Host: "other", Name: "keep.json"}); !ok {
		t.Error("another host's mark went with box's")
	}
	if err := s.MarkRelayed(ctx, RelayMark{Host: "box"}); err == nil {
		t.Error("a mark without a name was taken")
	}
}
