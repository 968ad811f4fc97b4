package remote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/reprise-dev/reprise/backend/api"
)

// Askpass: ssh's password, passphrase and host-key prompts reach the user
// instead of failing (or hanging on a terminal nobody sees). ssh runs with
// SSH_ASKPASS set to the reprise binary itself (SSH_ASKPASS_REQUIRE=force,
// so no DISPLAY is needed); run that way, reprise is the askpass helper
// (RunAskpass): it posts the prompt to the socket named in its environment
// — the host's local API (0600, this user's) or the CLI's own — and blocks
// until someone answers there, cancels, or the broker's timeout passes. It
// prints the answer for ssh and keeps nothing. Host keys stay checked by
// ssh as configured: a yes/no prompt is shown, never answered for the user.

// Askpass names the helper ssh runs and the socket it asks.
type Askpass struct {
	Exe  string // the GUI-free reprise binary
	Sock string // where POST /v1/askpass is served
}

// Environment of the askpass helper (set on ssh, which passes its own
// environment on to the helper).
const (
	AskpassModeEnv = "REPRISE_ASKPASS"      // "1": run as the askpass helper
	AskpassSockEnv = "REPRISE_ASKPASS_SOCK" // the socket to ask
	AskpassHostEnv = "REPRISE_ASKPASS_HOST" // the Reprise host name ssh is reaching
)

// Prompt kinds.
const (
	KindSecret  = "secret"  // a password, passphrase or one-time code: a masked field
	KindConfirm = "confirm" // a yes/no question (an unknown host key): Accept / Reject
)

// Bounds: a prompt is a line or a few (a host-key question with its
// fingerprint is ~300 bytes); an answer is a passphrase.
const (
	MaxPromptBytes = 2048
	MaxAnswerBytes = 4096
	// DefaultAskTimeout: after this long without an answer the helper
	// fails and ssh with it.
	DefaultAskTimeout = 2 * time.Minute
)

// askpassLinePrefix marks the helper's own line on ssh's stderr: the
// error ssh ends with ("Permission denied") says less than why the prompt
// went unanswered, so sshError prefers this line.
const askpassLinePrefix = "reprise askpass: "

// env is the environment ssh runs with: the caller's, minus any askpass
// setting of its own, plus the helper's.
func (a *Askpass) env(host string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", AskpassModeEnv, AskpassSockEnv, AskpassHostEnv:
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"SSH_ASKPASS="+a.Exe,
		"SSH_ASKPASS_REQUIRE=force",
		AskpassModeEnv+"=1",
		AskpassSockEnv+"="+a.Sock,
		AskpassHostEnv+"="+host,
	)
}

// AskRequest is the helper's POST /v1/askpass body.
type AskRequest struct {
	Host   string `json:"host"`
	Prompt string `json:"prompt"`
	Kind   string `json:"kind"`
}

// CleanPrompt bounds a prompt and drops control characters (an escape
// sequence in a server-supplied prompt must not reach a terminal).
func CleanPrompt(s string) string {
	s = strings.ToValidUTF8(s, "?")
	var b strings.Builder
	for _, r := range s {
		if r == '\n' || !unicode.IsControl(r) {
			if b.Len()+len(string(r)) > MaxPromptBytes {
				break
			}
			b.WriteRune(r)
		}
	}
	return strings.TrimSpace(b.String())
}

// PromptKind guesses the kind from ssh's prompt: a question ending in
// "(yes/no…)" is answered with a word, everything else is a secret.
func PromptKind(prompt string) string {
	if strings.Contains(prompt, "(yes/no") {
		return KindConfirm
	}
	return KindSecret
}

// Responder answers a prompt directly (the CLI, on its terminal) instead
// of through the UI.
type Responder func(ctx context.Context, p api.AskpassPrompt) (secret []byte, accept bool, err error)

// Broker holds the outstanding prompts, one per host at most, until the UI
// answers them.
type Broker struct {
	// Publish tells UIs a prompt opened or closed.
	Publish func(api.AskpassPrompt)
	// Respond, when set, answers instead of a UI.
	Respond Responder
	// Timeout: zero is DefaultAskTimeout.
	Timeout time.Duration

	mu      sync.Mutex
	pending map[string]*pendingAsk // by host
}

type pendingAsk struct {
	p    api.AskpassPrompt
	done chan askAnswer // buffered 1
}

type askAnswer struct {
	secret []byte
	accept bool
	cancel bool
}

// The helper's words for a prompt the user refused; sshError recognises
// them (ErrPromptCancelled).
const (
	refusedCancelled = "was cancelled"
	refusedNo        = "was answered no"
)

// ErrPromptCancelled: ssh failed because the user cancelled its prompt or
// rejected the host key; asking again at once would repeat the question.
var ErrPromptCancelled = errors.New("prompt cancelled")

// refusedError is ssh's failure after a refused prompt: its line, and Is
// ErrPromptCancelled.
type refusedError struct{ msg string }

func (e refusedError) Error() string        { return e.msg }
func (e refusedError) Is(target error) bool { return target == ErrPromptCancelled }

// Errors of an unanswered prompt; their text is the user's line.
var (
	ErrAskCancelled = errors.New("cancelled")
	ErrAskTimeout   = errors.New("no answer in time")
	ErrAskBusy      = errors.New("another prompt for this host is already open")
)

func (b *Broker) timeout() time.Duration {
	if b.Timeout > 0 {
		return b.Timeout
	}
	return DefaultAskTimeout
}

// Ask shows the prompt and waits. For a secret it returns the typed bytes
// (the caller zeroes them after use); for a confirm "yes" or "no".
func (b *Broker) Ask(ctx context.Context, req AskRequest) ([]byte, error) {
	if req.Host == "" {
		req.Host = "(unknown host)"
	}
	if req.Kind != KindConfirm {
		req.Kind = KindSecret
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	p := api.AskpassPrompt{ID: "ask_" + hex.EncodeToString(id[:]), Host: req.Host, Prompt: CleanPrompt(req.Prompt), Kind: req.Kind, Open: true}
	ctx, cancel := context.WithTimeout(ctx, b.timeout())
	defer cancel()
	if b.Respond != nil {
		secret, accept, err := b.Respond(ctx, p)
		if err != nil {
			return nil, err
		}
		return answerBytes(p.Kind, secret, accept), nil
	}
	pa := &pendingAsk{p: p, done: make(chan askAnswer, 1)}
	b.mu.Lock()
	if b.pending == nil {
		b.pending = map[string]*pendingAsk{}
	}
	if b.pending[p.Host] != nil {
		b.mu.Unlock()
		return nil, ErrAskBusy
	}
	b.pending[p.Host] = pa
	b.mu.Unlock()
	b.publish(p)
	outcome := "answered"
	defer func() {
		b.mu.Lock()
		if b.pending[p.Host] == pa {
			delete(b.pending, p.Host)
		}
		b.mu.Unlock()
		// An answer that came in as the wait ended is not kept.
		select {
		case late := <-pa.done:
			Zero(late.secret)
		default:
		}
		closed := p
		closed.Open, closed.Outcome = false, outcome
		b.publish(closed)
	}()
	select {
	case a := <-pa.done:
		if a.cancel {
			outcome = "cancelled"
			return nil, ErrAskCancelled
		}
		return answerBytes(p.Kind, a.secret, a.accept), nil
	case <-ctx.Done():
		outcome = "timeout"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, ErrAskTimeout
		}
		outcome = "cancelled"
		return nil, ErrAskCancelled
	}
}

func answerBytes(kind string, secret []byte, accept bool) []byte {
	if kind == KindConfirm {
		if accept {
			return []byte("yes")
		}
		return []byte("no")
	}
	return secret
}

func (b *Broker) publish(p api.AskpassPrompt) {
	if b.Publish != nil {
		b.Publish(p)
	}
}

// Answer resolves the open prompt id: with the typed secret, an accept or
// reject of a confirm, or a cancel. The broker owns secret from here on.
func (b *Broker) Answer(id string, secret []byte, accept, cancel bool) error {
	if len(secret) > MaxAnswerBytes {
		Zero(secret)
		return fmt.Errorf("answer longer than %d bytes", MaxAnswerBytes)
	}
	b.mu.Lock()
	var pa *pendingAsk
	for _, x := range b.pending {
		if x.p.ID == id {
			pa = x
			break
		}
	}
	if pa != nil {
		delete(b.pending, pa.p.Host)
	}
	b.mu.Unlock()
	if pa == nil {
		Zero(secret)
		return fmt.Errorf("no open prompt %q (it was answered, cancelled or timed out)", id)
	}
	pa.done <- askAnswer{secret: secret, accept: accept, cancel: cancel}
	return nil
}

// Pending lists the open prompts (for a UI that connects while one waits).
func (b *Broker) Pending() []api.AskpassPrompt {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]api.AskpassPrompt, 0, len(b.pending))
	for _, pa := range b.pending {
		out = append(out, pa.p)
	}
	return out
}

// Zero overwrites a secret in place.
func Zero(b []byte) {
	for i := range b {
		b[i] = 0
	}
}

// ServeHTTP is POST /v1/askpass: the body an AskRequest, the reply the
// answer's bytes (text/plain), or 422 with {"error": "..."}.
func (b *Broker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The wait may outlast the server's read timeout (the local API's is
	// 30 s); nothing more is read from this connection, so lift it.
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	var req AskRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 2*MaxPromptBytes+1024)).Decode(&req); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "bad askpass request: " + err.Error()})
		return
	}
	ans, err := b.Ask(r.Context(), req)
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(ans)
	Zero(ans)
}

// ServeAskpass serves b alone on a new socket sock (0600), for a process
// with no local API of its own (the CLI's `hosts check`). close stops it
// and removes the socket.
func ServeAskpass(sock string, b *Broker) (close func(), err error) {
	_ = os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("askpass socket: %w", err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("askpass socket: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /v1/askpass", b)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return func() {
		_ = srv.Close()
		_ = os.Remove(sock)
	}, nil
}

// IsAskpass reports whether this process was started by ssh as the
// askpass helper.
func IsAskpass() bool { return os.Getenv(AskpassModeEnv) == "1" && os.Getenv(AskpassSockEnv) != "" }

// RunAskpass is the helper: args are what ssh passed (the prompt), out is
// where ssh reads the answer, errw ssh's stderr. It returns the exit status.
func RunAskpass(args []string, out, errw io.Writer) int {
	prompt := strings.Join(args, " ")
	kind := PromptKind(prompt)
	// SSH_ASKPASS_PROMPT=confirm: answered by the exit status alone (an
	// agent's "allow use of key?"); none: a notice ("touch your key"),
	// nothing to answer.
	promptEnv := os.Getenv("SSH_ASKPASS_PROMPT")
	switch promptEnv {
	case "none":
		return 0
	case "confirm":
		kind = KindConfirm
	}
	host := os.Getenv(AskpassHostEnv)
	fail := func(why string) int {
		fmt.Fprintf(errw, "%s%s\n", askpassLinePrefix, why)
		return 1
	}
	body, _ := json.Marshal(AskRequest{Host: host, Prompt: CleanPrompt(prompt), Kind: kind})
	sock := os.Getenv(AskpassSockEnv)
	c := &http.Client{
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}},
		// The broker times out first; this only bounds a wedged socket.
		Timeout: DefaultAskTimeout + 30*time.Second,
	}
	resp, err := c.Post("http://reprise/v1/askpass", "application/json", strings.NewReader(string(body)))
	if err != nil {
		return fail("ssh asked \"" + short(prompt) + "\" but no Reprise window or terminal could be asked (" + err.Error() + ")")
	}
	defer resp.Body.Close()
	ans, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBytes+1))
	defer Zero(ans)
	if err != nil {
		return fail("reading the answer: " + err.Error())
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(ans, &e)
		if e.Error == "" {
			e.Error = resp.Status
		}
		switch e.Error {
		case ErrAskCancelled.Error():
			return fail("the prompt \"" + short(prompt) + "\" " + refusedCancelled)
		case ErrAskTimeout.Error():
			return fail("the prompt \"" + short(prompt) + "\" was not answered within " + DefaultAskTimeout.String())
		}
		return fail("the prompt \"" + short(prompt) + "\" was not answered: " + e.Error)
	}
	if kind == KindConfirm && string(ans) != "yes" {
		// ssh says "Host key verification failed"; this line says who.
		fmt.Fprintf(errw, "%s\"%s\" %s\n", askpassLinePrefix, short(prompt), refusedNo)
	}
	if promptEnv == "confirm" {
		if string(ans) == "yes" {
			return 0
		}
		return 1
	}
	buf := append(ans, '\n')
	_, err = out.Write(buf)
	Zero(buf)
	if err != nil {
		return 1
	}
	return 0
}

// short is a prompt's first line, bounded, for an error line.
func short(prompt string) string {
	p := CleanPrompt(prompt)
	if i := strings.IndexByte(p, '\n'); i >= 0 {
		p = p[:i]
	}
	if r := []rune(p); len(r) > 120 {
		p = string(r[:117]) + "..."
	}
	return strings.TrimSpace(p)
}
