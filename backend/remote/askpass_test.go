package remote

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// lockedKey makes a passphrase-protected key the test's sshd accepts and
// points the client config at it (no agent: the config says IdentityAgent
// none).
func lockedKey(t *testing.T, s *testenv.SSHD, pass string) {
	t.Helper()
	s.LockKey(t, pass)
	t.Setenv("SSH_AUTH_SOCK", "")
}

// askpassTarget routes the target's prompts to broker b on a socket of the
// test's own (what the host does on its local API socket).
func askpassTarget(t *testing.T, tg Target, b *Broker) Target {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "ask.sock")
	stop, err := ServeAskpass(sock, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	tg.Askpass = &Askpass{Exe: reprise, Sock: sock}
	return tg
}

// A passphrase-protected key with no agent: ssh runs the reprise binary as
// its askpass helper, whose prompt reaches the broker (the UI's side); the
// typed passphrase goes back and the connection comes up — bootstrap and
// the daemon channel over the one ControlMaster it authenticated.
func TestAskpassPassphraseReachesUIAndConnects(t *testing.T) {
	s := testenv.StartSSHD(t)
	lockedKey(t, s, "open sesame")
	seen := make(chan api.AskpassPrompt, 8)
	b := &Broker{}
	b.Publish = func(p api.AskpassPrompt) {
		seen <- p
		if p.Open {
			go func() {
				if err := b.Answer(p.ID, []byte("open sesame"), false, false); err != nil {
					t.Errorf("answer: %v", err)
				}
			}()
		}
	}
	tg := askpassTarget(t, target(t, s), b)
	// A hang guard only: on a loaded machine a login shell whose rc file
	// waits on a lock (pyenv rehash here) can take most of a minute.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, _, err := tg.Bootstrap(ctx, reprise); err != nil {
		t.Fatalf("bootstrap with the passphrase answered: %v", err)
	}
	c, _, err := tg.Dial(ctx, ptyclient.Options{Name: "test"})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	c.Close()
	p := <-seen
	if !p.Open || p.Host != "box" || p.Kind != KindSecret || !strings.Contains(p.Prompt, "passphrase") {
		t.Errorf("first prompt %+v, want an open secret passphrase prompt for box", p)
	}
	if closed := <-seen; closed.Open || closed.ID != p.ID || closed.Outcome != "answered" {
		t.Errorf("then %+v, want the same prompt closed, answered", closed)
	}
	select {
	case extra := <-seen:
		t.Errorf("asked again (%+v): the ControlMaster should carry the second channel", extra)
	default:
	}
	if len(b.Pending()) != 0 {
		t.Errorf("pending after the answer: %+v", b.Pending())
	}
}

// Cancelling the prompt: one clear line naming the prompt and the cancel,
// recognisable as a refusal (the host does not ask again at once), and no
// wait for any timeout.
func TestAskpassCancelFailsClearly(t *testing.T) {
	s := testenv.StartSSHD(t)
	lockedKey(t, s, "open sesame")
	b := &Broker{}
	b.Publish = func(p api.AskpassPrompt) {
		if p.Open {
			go b.Answer(p.ID, nil, false, true)
		}
	}
	tg := askpassTarget(t, target(t, s), b)
	err := bootstrapFails(t, tg, 60*time.Second, "with the prompt cancelled")
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "ssh to box: ") || !strings.Contains(msg, "passphrase") || !strings.Contains(msg, "was cancelled") {
		t.Errorf("error %q, want one line: ssh to box: the prompt … was cancelled", msg)
	}
	if !errors.Is(err, ErrPromptCancelled) {
		t.Errorf("error %q is not ErrPromptCancelled", msg)
	}
}

// No answer: the broker's timeout ends the prompt, and ssh with it.
func TestAskpassTimeout(t *testing.T) {
	s := testenv.StartSSHD(t)
	lockedKey(t, s, "open sesame")
	closed := make(chan api.AskpassPrompt, 1)
	b := &Broker{Timeout: 500 * time.Millisecond, Publish: func(p api.AskpassPrompt) {
		if !p.Open {
			closed <- p
		}
	}}
	tg := askpassTarget(t, target(t, s), b)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, _, err := tg.Bootstrap(ctx, reprise)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("bootstrap = %v (ctx %v), want a failure before the deadline", err, ctx.Err())
	}
	if p := <-closed; p.Outcome != "timeout" {
		t.Errorf("closed prompt %+v, want outcome timeout", p)
	}
	if !strings.Contains(err.Error(), "was not answered within") || errors.Is(err, ErrPromptCancelled) {
		t.Errorf("error %q, want the timeout line (and not a refusal)", err)
	}
}

// No socket answers (the host is not serving): one clear line, at once.
func TestAskpassNobodyToAsk(t *testing.T) {
	s := testenv.StartSSHD(t)
	lockedKey(t, s, "open sesame")
	tg := target(t, s)
	tg.Askpass = &Askpass{Exe: reprise, Sock: filepath.Join(t.TempDir(), "none.sock")}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _, err := tg.Bootstrap(ctx, reprise)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("bootstrap = %v, want a failure before the deadline", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "no Reprise window or terminal could be asked") {
		t.Errorf("error %q, want one line saying nobody could be asked", msg)
	}
}

// Only one open prompt per host; prompts are bounded and stripped of
// control characters; an answer to a closed prompt is refused.
func TestBrokerRules(t *testing.T) {
	opened := make(chan api.AskpassPrompt, 4)
	b := &Broker{Publish: func(p api.AskpassPrompt) {
		if p.Open {
			opened <- p
		}
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := make(chan error, 1)
	go func() {
		_, err := b.Ask(ctx, AskRequest{Host: "box", Prompt: "pw\x1b[31m" + strings.Repeat("x", 3*MaxPromptBytes)})
		res <- err
	}()
	p := <-opened
	if len(p.Prompt) > MaxPromptBytes || strings.ContainsRune(p.Prompt, 0x1b) {
		t.Errorf("prompt of %d bytes, escape kept %v", len(p.Prompt), strings.ContainsRune(p.Prompt, 0x1b))
	}
	if _, err := b.Ask(ctx, AskRequest{Host: "box", Prompt: "again"}); !errors.Is(err, ErrAskBusy) {
		t.Errorf("second prompt for box: %v, want ErrAskBusy", err)
	}
	if err := b.Answer(p.ID, make([]byte, MaxAnswerBytes+1), false, false); err == nil {
		t.Error("an oversized answer was taken")
	}
	secret := []byte("s3cret")
	if err := b.Answer(p.ID, secret, false, false); err != nil {
		t.Fatal(err)
	}
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if err := b.Answer(p.ID, []byte("late"), false, false); err == nil {
		t.Error("an answer to a closed prompt was taken")
	}
	// A host-key question is a confirm; Reject answers "no".
	go func() {
		p := <-opened
		b.Answer(p.ID, nil, false, false)
	}()
	ans, err := b.Ask(ctx, AskRequest{Host: "box", Prompt: "Are you sure you want to continue connecting (yes/no/[fingerprint])?", Kind: PromptKind("Are you sure you want to continue connecting (yes/no/[fingerprint])?")})
	if err != nil || string(ans) != "no" {
		t.Errorf("rejected host key: %q, %v; want no", ans, err)
	}
}
