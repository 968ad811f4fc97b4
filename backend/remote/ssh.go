// Package remote reaches a pty daemon on another machine through the
// system OpenSSH client: one ControlMaster per host under the Reprise home,
// keep-alives, and `reprise ptyd connect` at the far end, which relays the
// framed daemon protocol between the ssh channel and the remote daemon's
// socket. No ssh implementation of our own and no port opened on the
// remote: the user's ssh does authentication, host keys, ProxyJump.
package remote

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/shellquote"
)

// Target is one remote host as ssh reaches it.
type Target struct {
	Name string // the host's name in Reprise
	// Dest is [user@]host[:port] or an alias of the ssh config.
	Dest string
	// RemoteHome is the Reprise home on the remote; empty: its default.
	RemoteHome string
	// SSHConfig, when set, is passed as ssh -F (instead of ~/.ssh/config).
	SSHConfig string
	// ControlDir holds the ControlMaster sockets (created 0700).
	ControlDir string
	// SSH is the ssh binary; empty: "ssh" from PATH.
	SSH string
	// ControlPersist is how long an idle master outlives its last channel.
	ControlPersist time.Duration
	// Askpass, when set, is where ssh's prompts go (askpass.go); without
	// it ssh runs with BatchMode unless the user set SSH_ASKPASS.
	Askpass *Askpass
}

// splitDest parses [user@]host[:port]. A bracketed IPv6 address keeps its
// colons ([::1]:2222).
func splitDest(dest string) (userHost, port string, err error) {
	if dest == "" || strings.HasPrefix(dest, "-") || strings.ContainsAny(dest, " \t\n'\"`$;|&") {
		return "", "", fmt.Errorf("invalid ssh destination %q: want [user@]host[:port]", dest)
	}
	// A control character (a BEL pasted in, say) is in no host name; it was taken and then
	// shown as an invisible character in Settings → Hosts.
	if strings.ContainsFunc(dest, unicode.IsControl) || !utf8.ValidString(dest) {
		return "", "", fmt.Errorf("invalid ssh destination %q: a control character or invalid UTF-8", dest)
	}
	user, host := "", dest
	if i := strings.LastIndex(dest, "@"); i >= 0 {
		user, host = dest[:i+1], dest[i+1:]
	}
	if strings.HasPrefix(host, "[") {
		end := strings.Index(host, "]")
		if end < 0 {
			return "", "", fmt.Errorf("invalid ssh destination %q: unclosed [", dest)
		}
		rest := host[end+1:]
		host = host[1:end]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return "", "", fmt.Errorf("invalid ssh destination %q", dest)
			}
			port = rest[1:]
		}
	} else if i := strings.LastIndex(host, ":"); i >= 0 {
		host, port = host[:i], host[i+1:]
	}
	if host == "" {
		return "", "", fmt.Errorf("invalid ssh destination %q: no host", dest)
	}
	// "@box" was accepted and ssh then printed the last line of its usage;
	// a host that starts with "-" ("[-oProxyCommand=…]") is not a host.
	if user == "@" {
		return "", "", fmt.Errorf("invalid ssh destination %q: empty user name before '@'", dest)
	}
	if strings.HasPrefix(host, "-") {
		return "", "", fmt.Errorf("invalid ssh destination %q: a host name cannot start with '-'", dest)
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", "", fmt.Errorf("invalid ssh destination %q: bad port %q", dest, port)
		}
	}
	return user + host, port, nil
}

// ValidateDest reports whether dest is a destination Reprise accepts.
func ValidateDest(dest string) error {
	_, _, err := splitDest(dest)
	return err
}

// batchMode says whether ssh must not prompt: with no askpass program to
// show a prompt, a password or passphrase prompt would wait on a terminal
// nobody sees. BatchMode makes ssh fail at once instead, with a line we
// pass on.
func (t Target) batchMode() bool {
	if t.Askpass != nil {
		return false
	}
	return os.Getenv("SSH_ASKPASS") == "" || os.Getenv("SSH_ASKPASS_REQUIRE") == "never"
}

// homeExpr is the remote Reprise home as a shell word.
func (t Target) homeExpr() string {
	if t.RemoteHome != "" {
		return shellquote.Quote(t.RemoteHome)
	}
	return `"${REPRISE_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/reprise}"`
}

// binExpr is the installed remote binary as a shell word.
func (t Target) binExpr() string {
	if t.RemoteHome != "" {
		return shellquote.Quote(filepath.Join(t.RemoteHome, "bin", "reprise"))
	}
	return `"${REPRISE_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/reprise}/bin/reprise"`
}

// command is an ssh running remoteCmd as a channel of the host's master,
// which it starts first if none answers (master.go): it never logs in on
// its own.
func (t Target) command(ctx context.Context, remoteCmd string) (*exec.Cmd, error) {
	if err := t.EnsureMaster(ctx); err != nil {
		return nil, err
	}
	return t.channelCmd(ctx, remoteCmd)
}

// channelCmd is the channel ssh alone (the master already checked).
func (t Target) channelCmd(ctx context.Context, remoteCmd string) (*exec.Cmd, error) {
	a, err := t.args(remoteCmd)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, t.sshBin(), a...)
	// ssh must never read the user's terminal (a passphrase prompt on
	// /dev/tty would hang a host started from one): its own session.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.WaitDelay = 2 * time.Second
	if t.Askpass != nil {
		cmd.Env = t.Askpass.env(t.Name)
	}
	return cmd, nil
}

// Run runs remoteCmd on the host with stdin and returns its stdout. A
// failure is one line: ssh's own last complaint (auth, host key, refused)
// or the remote command's.
//
// A master that ended between its check and the channel's connect (a link
// drop) gets one more try, after a new master, when stdin can be read
// again from where it was (nil or a Seeker).
func (t Target) Run(ctx context.Context, remoteCmd string, stdin io.Reader) ([]byte, error) {
	var start int64 = -1
	if sk, ok := stdin.(io.Seeker); ok {
		if off, err := sk.Seek(0, io.SeekCurrent); err == nil {
			start = off
		}
	}
	out, err := t.run(ctx, remoteCmd, stdin)
	if errors.Is(err, ErrNoMaster) && ctx.Err() == nil && (stdin == nil || start >= 0) {
		if start >= 0 {
			if _, serr := stdin.(io.Seeker).Seek(start, io.SeekStart); serr != nil {
				return out, err
			}
		}
		out, err = t.run(ctx, remoteCmd, stdin)
	}
	return out, err
}

func (t Target) run(ctx context.Context, remoteCmd string, stdin io.Reader) ([]byte, error) {
	cmd, err := t.command(ctx, remoteCmd)
	if err != nil {
		return nil, err
	}
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), t.sshError(err, errb.String())
	}
	return out.Bytes(), nil
}

func (t Target) sshError(err error, stderr string) error {
	line := lastLine(stderr)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 255 && strings.Contains(stderr, noMasterMarker) {
		// A channel that found no master, and so did not log in.
		return noMasterError{fmt.Sprintf("ssh to %s: the ssh connection to it ended (no master on its control socket)", t.Name)}
	}
	if errors.As(err, &ee) && ee.ExitCode() == 255 {
		// 255 is ssh's own failure, not the remote command's.
		if ask := askpassLine(stderr); ask != "" {
			// Why the prompt went unanswered says more than the
			// "Permission denied" ssh ends with.
			refused := strings.HasSuffix(ask, refusedCancelled) || strings.HasSuffix(ask, refusedNo)
			if line != "" && !strings.HasPrefix(line, askpassLinePrefix) {
				ask += " (ssh: " + line + ")"
			}
			if refused {
				return refusedError{fmt.Sprintf("ssh to %s: %s", t.Name, ask)}
			}
			return fmt.Errorf("ssh to %s: %s", t.Name, ask)
		}
		hint := ""
		if strings.Contains(line, "Permission denied") && t.batchMode() {
			hint = " (ssh may not prompt for a password or passphrase here: load the key into ssh-agent, or set SSH_ASKPASS)"
		}
		if line == "" {
			line = "ssh exited 255"
		}
		return fmt.Errorf("ssh to %s: %s%s", t.Name, line, hint)
	}
	if line != "" {
		return fmt.Errorf("on %s: %s: %w", t.Name, line, err)
	}
	return fmt.Errorf("on %s: %w", t.Name, err)
}

// askpassLine is the askpass helper's last line on ssh's stderr, without
// its prefix, or "".
func askpassLine(stderr string) string {
	lines := strings.Split(strings.ReplaceAll(stderr, "\r", ""), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, askpassLinePrefix) {
			return strings.TrimPrefix(l, askpassLinePrefix)
		}
	}
	return ""
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(strings.ReplaceAll(s, "\r", "")), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// Probe is what one round trip learns about the remote: its platform, the
// checksum of the installed reprise (empty: none), and the login shell and
// environment new terminals there start from.
type Probe struct {
	GOOS, GOARCH string
	BinarySHA256 string
	Shell        string
	Env          []string // KEY=VALUE, as the remote login sees it
}

// Probe runs one remote command: a reconnect costs one round trip (plus
// the channel of the daemon connection), not one per question.
func (t Target) Probe(ctx context.Context) (Probe, error) {
	// shasum: macOS has no sha256sum.
	script := `uname -sm; (sha256sum ` + t.binExpr() + ` 2>/dev/null || shasum -a 256 ` + t.binExpr() + ` 2>/dev/null || echo none) | cut -d' ' -f1; getent passwd "$(id -un)" | cut -d: -f7; env -0`
	out, err := t.Run(ctx, script, nil)
	if err != nil {
		return Probe{}, err
	}
	var p Probe
	rest := string(out)
	var lines [3]string
	for i := range lines {
		line, after, ok := strings.Cut(rest, "\n")
		if !ok {
			return Probe{}, fmt.Errorf("on %s: unexpected probe output %q", t.Name, out)
		}
		lines[i], rest = strings.TrimSpace(line), after
	}
	f := strings.Fields(lines[0])
	if len(f) != 2 {
		return Probe{}, fmt.Errorf("on %s: unexpected uname output %q", t.Name, lines[0])
	}
	p.GOOS = strings.ToLower(f[0])
	switch f[1] {
	case "x86_64", "amd64":
		p.GOARCH = "amd64"
	case "aarch64", "arm64":
		p.GOARCH = "arm64"
	case "i686", "i386":
		p.GOARCH = "386"
	default:
		p.GOARCH = f[1]
	}
	if lines[1] != "none" {
		p.BinarySHA256 = lines[1]
	}
	p.Shell = lines[2]
	for _, kv := range strings.Split(strings.TrimRight(rest, "\x00"), "\x00") {
		if kv == "" {
			continue
		}
		if name, val, _ := strings.Cut(kv, "="); name == "SHELL" && p.Shell == "" {
			p.Shell = val
		}
		p.Env = append(p.Env, kv)
	}
	if p.Shell == "" {
		p.Shell = "/bin/sh"
	}
	return p, nil
}

// Bootstrap makes the remote run exactly the binary exe: it checks the
// remote's OS and architecture, compares checksums, and when they differ
// uploads exe over the same ssh connection into the remote home's bin
// directory — to a temporary file, verified, then renamed over the old
// one. The rename is atomic, and a running remote daemon keeps running the
// binary it was started from (its inode); the next daemon start uses the
// new one. It reports whether it uploaded, and what the probe found.
func (t Target) Bootstrap(ctx context.Context, exe string) (uploaded bool, p Probe, err error) {
	p, err = t.Probe(ctx)
	if err != nil {
		return false, p, err
	}
	bin, err := RemoteBinary(exe, p.GOOS, p.GOARCH)
	if err != nil {
		return false, p, fmt.Errorf("%s runs %s/%s but %w", t.Name, p.GOOS, p.GOARCH, err)
	}
	sum, err := fileSHA256(bin)
	if err != nil {
		return false, p, err
	}
	if p.BinarySHA256 == sum {
		return false, p, nil
	}
	f, err := os.Open(bin)
	if err != nil {
		return false, p, fmt.Errorf("open %s: %w", bin, err)
	}
	defer f.Close()
	// umask 077: the home and the binary are private to the remote user.
	// The checksum is verified there before the rename (shasum: macOS).
	script := fmt.Sprintf(`set -e; umask 077; h=%s; mkdir -p "$h/bin"; tmp="$h/bin/.reprise.upload.$$"; trap 'rm -f "$tmp"' EXIT; cat > "$tmp"; got=$( (sha256sum "$tmp" 2>/dev/null || shasum -a 256 "$tmp") | cut -d' ' -f1); if [ "$got" != "%s" ]; then echo "checksum mismatch after upload (got $got)" >&2; exit 1; fi; chmod 700 "$tmp"; mv -f "$tmp" "$h/bin/reprise"; trap - EXIT`, t.homeExpr(), sum)
	if _, err := t.Run(ctx, script, f); err != nil {
		return false, p, fmt.Errorf("upload reprise to %s: %w", t.Name, err)
	}
	p.BinarySHA256 = sum
	return true, p, nil
}

// RemoteBinaryDir is where the static remote binaries live, relative to
// the directory of the reprise binary (`make build`: build/bin/remote).
const RemoteBinaryDir = "remote"

// RemoteBinary is the reprise to install on a remote running goos/goarch:
// the static build for it beside exe (remote/reprise-GOOS-GOARCH) — no
// libc to match there — or, for a remote of this machine's own platform
// without one, exe itself. No matching binary is an error naming the file
// looked for; the caller adds the host.
func RemoteBinary(exe, goos, goarch string) (string, error) {
	name := "reprise-" + goos + "-" + goarch
	p := filepath.Join(filepath.Dir(exe), RemoteBinaryDir, name)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p, nil
	}
	if goos == runtime.GOOS && goarch == runtime.GOARCH {
		return exe, nil
	}
	return "", fmt.Errorf("no reprise for %s/%s is installed beside this one (looked for %s; make build builds linux/amd64 and linux/arm64)", goos, goarch, p)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Dial opens an ssh channel running `reprise ptyd connect` on the remote
// (which starts the remote daemon detached if it is not running) and
// speaks the daemon protocol over it. The ssh child is killed when the
// client is closed; when ssh dies (the link dropped, kill -9), the client's
// Done fires.
//
// The client measures the link's round-trip time and reports it to the
// daemon, which sizes its flow-control windows for it (docs/wire.md); a
// negative opts.MeasureLink turns that off (the benchmark's "old window").
func (t Target) Dial(ctx context.Context, opts ptyclient.Options) (*ptyclient.Client, *exec.Cmd, error) {
	return t.dial(ctx, opts, "")
}

// DialRunning is Dial to a daemon that runs already: it never starts one
// (restore-check changes nothing there).
func (t Target) DialRunning(ctx context.Context, opts ptyclient.Options) (*ptyclient.Client, *exec.Cmd, error) {
	return t.dial(ctx, opts, " --no-start")
}

func (t Target) dial(ctx context.Context, opts ptyclient.Options, flags string) (*ptyclient.Client, *exec.Cmd, error) {
	c, cmd, err := t.dialOnce(ctx, opts, flags)
	if errors.Is(err, ErrNoMaster) && ctx.Err() == nil {
		// The master ended as the channel connected: a new one, once.
		c, cmd, err = t.dialOnce(ctx, opts, flags)
	}
	return c, cmd, err
}

func (t Target) dialOnce(ctx context.Context, opts ptyclient.Options, flags string) (*ptyclient.Client, *exec.Cmd, error) {
	if opts.MeasureLink == 0 {
		opts.MeasureLink = LinkPingEvery
	}
	remoteCmd := t.binExpr() + " ptyd connect" + flags + " --home " + t.homeExpr()
	// The master under the dial's ctx; the channel not under
	// CommandContext's: the link outlives the dial.
	if err := t.EnsureMaster(ctx); err != nil {
		return nil, nil, err
	}
	cmd, err := t.channelCmd(context.Background(), remoteCmd)
	if err != nil {
		return nil, nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	errb := &tailBuffer{}
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start ssh: %w", err)
	}
	conn := &pipeConn{r: stdout, w: stdin, cmd: cmd, exited: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		conn.setExit(err)
	}()
	type result struct {
		c   *ptyclient.Client
		err error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := ptyclient.NewClient(conn, opts)
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			conn.Close()
			<-conn.exited
			conn.mu.Lock()
			exitErr := conn.exitErr
			conn.mu.Unlock()
			if line := lastLine(errb.String()); line != "" && exitErr != nil {
				return nil, nil, t.sshError(exitErr, errb.String())
			}
			return nil, nil, fmt.Errorf("ssh to %s: %w", t.Name, r.err)
		}
		return r.c, cmd, nil
	case <-ctx.Done():
		conn.Close()
		return nil, nil, fmt.Errorf("ssh to %s: %w", t.Name, ctx.Err())
	}
}

// LinkPingEvery is how often a daemon connection over ssh measures its
// round-trip time.
const LinkPingEvery = 2 * time.Second

// ControlPID is the pid of the host's ssh ControlMaster, from `ssh -O
// check`, or 0 if none runs.
func (t Target) ControlPID(ctx context.Context) int {
	a, err := t.args("true")
	if err != nil {
		return 0
	}
	// -O check goes before the destination.
	a = append([]string{"-O", "check"}, a...)
	out, _ := exec.CommandContext(ctx, t.sshBin(), a...).CombinedOutput()
	s := string(out)
	if i := strings.Index(s, "pid="); i >= 0 {
		end := strings.IndexByte(s[i:], ')')
		if end > 0 {
			n, _ := strconv.Atoi(s[i+4 : i+end])
			return n
		}
	}
	return 0
}

// tailBuffer keeps the last few KiB of ssh's stderr for error messages.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// pipeConn is an ssh child's stdio as a net.Conn for ptyclient.
type pipeConn struct {
	r       io.ReadCloser
	w       io.WriteCloser
	cmd     *exec.Cmd
	once    sync.Once
	mu      sync.Mutex
	exitErr error
	exited  chan struct{}
}

func (c *pipeConn) setExit(err error) {
	c.mu.Lock()
	c.exitErr = err
	c.mu.Unlock()
	close(c.exited)
}

func (c *pipeConn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *pipeConn) Write(p []byte) (int, error) { return c.w.Write(p) }

// Close ends the channel: stdin closes (the remote bridge sees EOF and
// disconnects from the daemon) and the ssh child is killed.
func (c *pipeConn) Close() error {
	c.once.Do(func() {
		c.w.Close()
		if c.cmd.Process != nil {
			_ = c.cmd.Process.Kill()
		}
	})
	return nil
}

func (c *pipeConn) LocalAddr() net.Addr              { return sshAddr{} }
func (c *pipeConn) RemoteAddr() net.Addr             { return sshAddr{} }
func (c *pipeConn) SetDeadline(time.Time) error      { return nil }
func (c *pipeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *pipeConn) SetWriteDeadline(time.Time) error { return nil }

type sshAddr struct{}

func (sshAddr) Network() string { return "ssh" }
func (sshAddr) String() string  { return "ssh" }

// ForHost is the target of a stored host of home: its ControlMaster
// sockets live in <home>/ssh (0700).
func ForHost(homeDir, name, dest, remoteHome, sshConfig string) Target {
	return Target{Name: name, Dest: dest, RemoteHome: remoteHome, SSHConfig: sshConfig, ControlDir: filepath.Join(homeDir, "ssh")}
}

// Check is `reprise hosts check`: it bootstraps the host and asks its
// daemon for its sessions, starting the daemon if none runs.
func (t Target) Check(ctx context.Context, exe string) (string, error) {
	up, _, err := t.Bootstrap(ctx, exe)
	if err != nil {
		return "", err
	}
	c, _, err := t.Dial(ctx, ptyclient.Options{Name: "check"})
	if err != nil {
		return "", err
	}
	defer c.Close()
	list, err := c.List(ctx)
	if err != nil {
		return "", fmt.Errorf("on %s: list sessions: %w", t.Name, err)
	}
	alive := 0
	for _, s := range list {
		if s.Alive {
			alive++
		}
	}
	what := "binary up to date"
	if up {
		what = "binary installed"
	}
	return fmt.Sprintf("%s: ok (%s; daemon pid %d, %d sessions running)", t.Name, what, c.DaemonPID, alive), nil
}

// Command is an ssh command running remoteCmd on the host over its
// ControlMaster (started first if none runs), not yet started itself (a
// long-lived channel such as the inbox relay wires its own pipes).
func (t Target) Command(ctx context.Context, remoteCmd string) (*exec.Cmd, error) {
	return t.command(ctx, remoteCmd)
}

// RelayCommand is the remote command that streams the remote home's hook
// inbox (`reprise inbox drain --stdio`, docs/wire.md).
func (t Target) RelayCommand() string {
	return "REPRISE_HOME=" + t.homeExpr() + " exec " + t.binExpr() + " inbox drain --stdio"
}

// HomeFrom is the remote Reprise home as an absolute path, from the remote
// login environment (what homeExpr expands to there).
func (t Target) HomeFrom(env []string) string {
	if t.RemoteHome != "" {
		return t.RemoteHome
	}
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	switch {
	case vars["REPRISE_HOME"] != "":
		return vars["REPRISE_HOME"]
	case vars["XDG_DATA_HOME"] != "":
		return filepath.Join(vars["XDG_DATA_HOME"], "reprise")
	case vars["HOME"] != "":
		return filepath.Join(vars["HOME"], ".local", "share", "reprise")
	}
	return ""
}

// WriteFile writes data to path on the host atomically (a temporary file
// in the same directory, renamed over), 0600 in a 0700 directory.
func (t Target) WriteFile(ctx context.Context, path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".tmp")
	script := "umask 077; mkdir -p " + shellquote.Quote(dir) + " && cat > " + shellquote.Quote(tmp) + `.$$ && mv -f ` + shellquote.Quote(tmp) + `.$$ ` + shellquote.Quote(path)
	if _, err := t.Run(ctx, script, bytes.NewReader(data)); err != nil {
		return fmt.Errorf("write %s on %s: %w", path, t.Name, err)
	}
	return nil
}

// MaxDirPath bounds a directory MkdirAll creates (as the daemon's facts
// bound the paths they stat).
const MaxDirPath = 4096

// MkdirAll creates dir and any missing parents on the host, each 0700
// (umask 077 there), as os.MkdirAll(dir, 0o700) does here: the folder a
// resume recreates. dir must be absolute, at most MaxDirPath bytes, with no
// NUL. An existing directory is fine; anything else in its place fails.
func (t Target) MkdirAll(ctx context.Context, dir string) error {
	switch {
	case !filepath.IsAbs(dir):
		return fmt.Errorf("create %q on %s: not an absolute path", dir, t.Name)
	case len(dir) > MaxDirPath:
		return fmt.Errorf("create a folder on %s: path longer than %d bytes", t.Name, MaxDirPath)
	case strings.ContainsRune(dir, 0):
		return fmt.Errorf("create a folder on %s: NUL in the path", t.Name)
	}
	q := shellquote.Quote(filepath.Clean(dir))
	if _, err := t.Run(ctx, "umask 077; mkdir -p -- "+q+" && test -d "+q, nil); err != nil {
		return err // ssh's line or mkdir's, naming the host
	}
	return nil
}
