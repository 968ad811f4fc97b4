package fake

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

func TestClaudeProjectDirName(t *testing.T) {
	tests := map[string]string{
		"/home/a/my.app":    "-home-a-my-app",
		"/tmp/x_y z/Ünï":    "-tmp-x-y-z--n-",
		"/w/😀":              "-w---",
		"/srv/Repo2/sub-d/": "-srv-Repo2-sub-d-",
	}
	for in, want := range tests {
		if got := ClaudeProjectDirName(in); got != want {
			t.Errorf("ClaudeProjectDirName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClaudeTranscriptRoundTrip(t *testing.T) {
	dir := t.TempDir()
	id := NewUUIDv4()
	path := ClaudeTranscriptPath(dir, "/w/p", id)
	if ClaudeTranscriptExists(dir, "/w/p", id) {
		t.Fatal("transcript exists before the first prompt")
	}
	tr := &ClaudeTranscript{Path: path, SessionID: id, Cwd: "/w/p"}
	msgs := []Message{{"user", "remember KUMQUAT"}, {"assistant", "ack: remember KUMQUAT"}}
	for _, m := range msgs {
		if err := tr.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if !ClaudeTranscriptExists(dir, "/w/p", id) || ClaudeTranscriptExists(dir, "/w/other", id) {
		t.Fatal("a transcript belongs to its cwd's project")
	}
	got, cont, err := ReadClaudeTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, msgs) || cont.SessionID != id {
		t.Fatalf("read %+v (session %s), want %+v", got, cont.SessionID, msgs)
	}
	// A continued transcript chains to the last entry.
	if err := cont.Append(Message{"user", "again"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var last, prev claudeEntry
	lines := splitLines(data)
	_ = json.Unmarshal(lines[1], &prev)
	_ = json.Unmarshal(lines[2], &last)
	if last.ParentUUID == nil || *last.ParentUUID != prev.UUID {
		t.Errorf("parentUuid = %v, want %s", last.ParentUUID, prev.UUID)
	}
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, b[:i])
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

func TestClaudeRegistry(t *testing.T) {
	dir := t.TempDir()
	want := ClaudeRegistry{PID: 42, SessionID: NewUUIDv4(), Cwd: "/w"}
	if err := WriteClaudeRegistry(dir, want); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ClaudeRegistryPath(dir, 42))
	if err != nil {
		t.Fatal(err)
	}
	var got ClaudeRegistry
	if err := json.Unmarshal(data, &got); err != nil || got != want {
		t.Errorf("registry = %s (%v), want %+v", data, err, want)
	}
}
