package remote

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/internal/testenv"
)

var reprise string

func TestMain(m *testing.M) {
	testenv.Main(m, func(b *testenv.Binaries) { reprise = b.Reprise })
}

// target reaches the test's sshd with a remote home of its own.
func target(t *testing.T, s *testenv.SSHD) Target {
	t.Helper()
	rh := testenv.RemoteHome(t)
	tg := Target{Name: "box", Dest: s.Alias, SSHConfig: s.Config, RemoteHome: rh, ControlDir: filepath.Join(s.Dir, "cm")}
	t.Cleanup(func() {
		// End the ControlMaster the test started.
		if pid := tg.ControlPID(context.Background()); pid > 0 {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	})
	return tg
}

func TestDestParsing(t *testing.T) {
	for _, c := range []struct{ in, uh, port string }{
		{"box", "box", ""}, {"me@box:2222", "me@box", "2222"}, {"[::1]:22", "::1", "22"}, {"me@[fe80::1]", "me@fe80::1", ""},
	} {
		uh, port, err := splitDest(c.in)
		if err != nil || uh != c.uh || port != c.port {
			t.Errorf("splitDest(%q) = %q %q %v, want %q %q", c.in, uh, port, err, c.uh, c.port)
		}
	}
	for _, bad := range []string{"", "-oProxyCommand=x", "box:0", "box:http", "a b", "me@", "@box", "@box:22", "[-oProxyCommand=x]", "me@-oProxyCommand=x", "ho\x07st", "box\r", "bo\xffx"} {
		if _, _, err := splitDest(bad); err == nil {
			t.Errorf("splitDest(%q) accepted", bad)
		}
	}
}

// Bootstrap uploads this binary once (checksum verified), not again when
// it matches, and again after it changed; the remote daemon started over
// the link keeps running across the upgrade and serves a session.
func TestBootstrapDialAndUpgrade(t *testing.T) {
	s := testenv.StartSSHD(t)
	tg := target(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	up, _, err := tg.Bootstrap(ctx, reprise)
	if err != nil || !up {
		t.Fatalf("first bootstrap: uploaded %v, %v", up, err)
	}
	want, _ := os.ReadFile(reprise)
	got, _ := os.ReadFile(filepath.Join(tg.RemoteHome, "bin", "reprise"))
	if !bytes.Equal(got, want) {
		t.Fatalf("remote binary differs (%d vs %d bytes)", len(got), len(want))
	}
	if up, _, err := tg.Bootstrap(ctx, reprise); err != nil || up {
		t.Fatalf("second bootstrap: uploaded %v, %v; want no upload", up, err)
	}

	c, _, err := tg.Dial(ctx, ptyclient.Options{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.Open(ctx, ptyclient.OpenRequest{ID: "t_r1", Argv: []string{"/bin/sh", "-c", "echo remote-$((6*7)); exec sleep 600"}, Cwd: "/", Env: []string{"PATH=/usr/bin:/bin"}, Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	daemonPID := c.DaemonPID

	// An upgrade: a different binary (the same one with bytes appended
	// still runs: ELF ignores trailing data).
	newer := filepath.Join(t.TempDir(), "reprise")
	if err := os.WriteFile(newer, append(want, []byte("v2")...), 0o755); err != nil {
		t.Fatal(err)
	}
	if up, _, err := tg.Bootstrap(ctx, newer); err != nil || !up {
		t.Fatalf("upgrade: uploaded %v, %v", up, err)
	}
	c.Close()
	c2, _, err := tg.Dial(ctx, ptyclient.Options{Name: "test2"})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if c2.DaemonPID != daemonPID {
		t.Errorf("daemon pid %d after upgrade, want the same %d (the running daemon must survive)", c2.DaemonPID, daemonPID)
	}
	list, err := c2.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != "t_r1" || !list[0].Alive || list[0].PID != info.PID {
		t.Fatalf("after upgrade the daemon lists %+v (%v), want t_r1 alive", list, err)
	}
	var out bytes.Buffer
	gotOut := make(chan struct{}, 1)
	if _, err := c2.Subscribe(ctx, "t_r1", ptyclient.SubscribeOptions{OnData: func(p []byte) {
		out.Write(p)
		if strings.Contains(out.String(), "remote-42") {
			select {
			case gotOut <- struct{}{}:
			default:
			}
		}
	}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gotOut:
	case <-ctx.Done():
		t.Fatalf("no remote-42 in replay: %q", out.String())
	}
}

// A key with a passphrase, no agent and no askpass: one clear line, fast.
// It runs again inside a pty (script(1)), where a prompting ssh would wait
// on /dev/tty for a passphrase nobody types: there it must not hang either.
func TestPassphraseKeyFailsClearly(t *testing.T) {
	t.Run("no tty", testPassphraseKey)
	t.Run("under a tty", func(t *testing.T) {
		if os.Getenv("REPRISE_TEST_IN_PTY") != "" {
			t.Skip("already in the pty")
		}
		scriptBin, err := exec.LookPath("script")
		if err != nil {
			t.Skip("no script(1)")
		}
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, scriptBin, "-qec", self+" -test.run='^TestPassphraseKeyFailsClearly$/^no_tty$' -test.v", "/dev/null")
		cmd.Env = append(os.Environ(), "REPRISE_TEST_IN_PTY=1", testenv.BinEnv+"="+reprise)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestPassphraseKeyFailsClearly/no_tty") {
			t.Fatalf("under a pty: %v\n%s", err, out)
		}
	})
}

func testPassphraseKey(t *testing.T) {
	s := testenv.StartSSHD(t)
	key := filepath.Join(t.TempDir(), "locked")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "secret-pass", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	s.WriteClientConfig(t, key)
	t.Setenv("SSH_ASKPASS", "")
	t.Setenv("SSH_AUTH_SOCK", "")
	tg := target(t, s)
	err := bootstrapFails(t, tg, 30*time.Second, "with a locked key")
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "Permission denied") || !strings.Contains(msg, "ssh-agent") {
		t.Errorf("error %q, want one line naming the denial and how to fix it", msg)
	}
}

// MkdirAll makes the folder and its missing parents on the host, 0700
// each, accepts one that exists, and refuses a relative or oversized path
// or a file in the way with one line.
func TestMkdirAllOnHost(t *testing.T) {
	s := testenv.StartSSHD(t)
	tg := target(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := t.TempDir()
	dir := filepath.Join(base, "a b", "it's", "c")
	if err := tg.MkdirAll(ctx, dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(base, "a b"), filepath.Join(base, "a b", "it's"), dir} {
		if st, err := os.Stat(d); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want a 0700 directory", d, st, err)
		}
	}
	if err := tg.MkdirAll(ctx, dir); err != nil {
		t.Errorf("again: %v", err)
	}
	file := filepath.Join(base, "file")
	os.WriteFile(file, nil, 0o600)
	for _, bad := range []string{"rel/dir", "/" + strings.Repeat("x", MaxDirPath), file, filepath.Join(file, "sub")} {
		err := tg.MkdirAll(ctx, bad)
		t.Logf("MkdirAll(%.40q): %v", bad, err)
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "box") {
			t.Errorf("MkdirAll(%.40q) = %v, want one line naming the host", bad, err)
		}
	}
}

// bootstrapFails runs tg's bootstrap, which must fail (the case is how)
// within d, and returns its error.
func bootstrapFails(t *testing.T, tg Target, d time.Duration, how string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_, _, err := tg.Bootstrap(ctx, reprise)
	if err == nil {
		t.Fatalf("bootstrap %s succeeded", how)
	}
	if ctx.Err() != nil {
		t.Fatalf("bootstrap %s hung until the deadline: %v", how, err)
	}
	return err
}
