package fakeagents_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/reprise-dev/reprise/internal/fakeagents/fake"
)

// geminiHookCommand logs each payload as hookCommand does, with Gemini's
// variables in the first two columns: GEMINI_SESSION_ID and MY_API_KEY (a
// secret-looking name, which Gemini strips from the hook's environment).
const geminiHookCommand = `p=$(cat); printf '%s\t%s\t\t%s\n' "$GEMINI_SESSION_ID" "$MY_API_KEY" "$p" >> "$HOOKLOG"`

// geminiWorld is a world whose ~/.gemini/settings.json has the logging hook
// for Gemini's events — a user's file, with a comment and trailing commas,
// and timeouts in milliseconds.
func geminiWorld(t *testing.T) *world {
	w := newWorld(t)
	h := `[{"hooks": [{"name": "log", "type": "command", "command": ` + quoteJSON(geminiHookCommand) + `, "timeout": 5000,},],},]`
	w.write(filepath.Join(w.home, ".gemini", "settings.json"), "{\n  // mine\n  \"general\": {\"enableAutoUpdate\": false},\n  \"hooks\": {\n"+
		`    "SessionStart": `+h+",\n"+`    "BeforeAgent": `+h+",\n"+`    "AfterAgent": `+h+",\n"+`    "SessionEnd": `+h+",\n  },\n}\n")
	w.env = append(w.env, "MY_API_KEY=s3cret")
	return w
}

func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

const geminiID = "5b33cb3c-8afd-49d1-a862-1be8b0dc6086"

// The id given with --session-id is the session's: SessionStart at launch,
// BeforeAgent/AfterAgent around the turn, GEMINI_SESSION_ID set and the
// secret-looking variable gone from the hook's environment; /quit says
// SessionEnd "exit" three times and exits 0; the chat file the payloads
// name holds the reply.
func TestGeminiSessionAndTurnHooks(t *testing.T) {
	w := geminiWorld(t)
	a := w.start("gemini", "--session-id", geminiID, "remember PLUM")
	a.expect("✦ ack: remember PLUM")
	a.expect("Type your message")
	a.send("/quit")
	if code := a.wait(); code != 0 {
		t.Fatalf("/quit exit %d", code)
	}
	evs := w.events()
	want := []string{"SessionStart:startup", "BeforeAgent", "AfterAgent", "SessionEnd:exit", "SessionEnd:exit", "SessionEnd:exit"}
	if !equal(names(evs), want) {
		t.Fatalf("events %q, want %q", names(evs), want)
	}
	chat := evs[0].str("transcript_path")
	for _, e := range evs {
		if e.id() != geminiID || e.EnvSessionID != geminiID || e.str("cwd") != w.cwd || e.str("transcript_path") != chat || e.str("timestamp") == "" {
			t.Errorf("%s: payload %v, GEMINI_SESSION_ID %q", e.name(), e.Payload, e.EnvSessionID)
		}
		if e.EnvThreadID != "" {
			t.Errorf("%s: MY_API_KEY reached the hook: %q", e.name(), e.EnvThreadID)
		}
	}
	if evs[1].str("prompt") != "remember PLUM" || evs[2].str("prompt_response") != "ack: remember PLUM" {
		t.Errorf("BeforeAgent %v, AfterAgent %v", evs[1].Payload, evs[2].Payload)
	}
	b, err := os.ReadFile(chat)
	if err != nil || !strings.Contains(string(b), `"type":"gemini"`) {
		t.Fatalf("chat file %s: %q, %v", chat, b, err)
	}
	if want := filepath.Join(w.home, ".gemini", "tmp", filepath.Base(w.cwd), "chats"); filepath.Dir(chat) != want {
		t.Errorf("chat file %s, want it in %s", chat, want)
	}

	// --resume: the old turn back, SessionStart "resume", the same id.
	a = w.start("gemini", "--resume", geminiID)
	a.expect("✦ ack: remember PLUM")
	a.expect("Type your message")
	a.signal(syscall.SIGHUP)
	if code := a.wait(); code != 0 {
		t.Fatalf("exit %d on SIGHUP, want 0", code)
	}
	evs = w.events()[len(want):]
	if got := names(evs); !equal(got, []string{"SessionStart:resume", "SessionEnd:exit", "SessionEnd:exit", "SessionEnd:exit"}) {
		t.Fatalf("resume, SIGHUP: events %q", got)
	}
	if evs[0].id() != geminiID || evs[0].str("transcript_path") != chat {
		t.Fatalf("resumed SessionStart %v", evs[0].Payload)
	}
}

// A session with no model reply is deleted at exit, so --resume cannot
// find it.
func TestGeminiNoReplyNotResumable(t *testing.T) {
	w := geminiWorld(t)
	a := w.start("gemini", "--session-id", geminiID)
	a.expect("Type your message")
	a.send("/quit")
	if code := a.wait(); code != 0 {
		t.Fatalf("/quit exit %d", code)
	}
	if ents, _ := os.ReadDir(fake.GeminiChatDir(w.home, w.cwd)); len(ents) != 0 {
		t.Fatalf("chat files left: %v", ents)
	}
	code, out := w.run("gemini", "--resume", geminiID)
	if code != 42 || !strings.Contains(out, "No previous sessions found for this project.") {
		t.Fatalf("resume of a never-answered session: %d %q", code, out)
	}
	if code, out := w.run("gemini", "--resume", "../x"); code != 42 {
		t.Fatalf("resume of a hostile id: %d %q", code, out)
	}
	if code, out := w.run("gemini", "--bogus"); code != 1 || !strings.Contains(out, "Unknown argument: bogus") {
		t.Fatalf("unknown flag: %d %q", code, out)
	}
}

func TestStripJSONC(t *testing.T) {
	in := "{\n // c \"x\"\n \"a\": \"//not a comment, \\\"q\\\"\", /* b */ \"l\": [1, 2,],\n}\n"
	got := string(fake.StripJSONC([]byte(in)))
	if strings.Contains(got, "c \"x\"") || strings.Contains(got, "b */") || strings.Contains(got, ",]") || strings.Contains(got, ",\n}") || !strings.Contains(got, `"//not a comment, \"q\""`) {
		t.Fatalf("StripJSONC: %q", got)
	}
}
