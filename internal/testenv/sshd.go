package testenv

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SSHD is a real OpenSSH server started for one test on 127.0.0.1 with a
// throwaway host key and user key, its own sshd_config and
// AuthorizedKeysFile, and an ssh client config that trusts exactly that
// host key (StrictHostKeyChecking yes: host keys are checked, as for users).
// The remote side is the same Unix user as the test; a test gives the
// remote its own Reprise home, which is what separates it.
type SSHD struct {
	Dir       string
	Port      int
	User      string
	Config    string // ssh client config: Host "reprise-test" reaches the server
	Alias     string // "reprise-test"
	UserKey   string // private key file (no passphrase)
	KnownHost string
	Cmd       *exec.Cmd

	argv          []string // how sshd is started (Restart)
	logf          *os.File
	listen        string // the address sshd listens on
	hostKeyLine   string // "TYPE BASE64" of the host key
	clientHost    string // where the client config points (ReachVia)
	clientPortNum int
}

func (s *SSHD) start(t testing.TB) {
	t.Helper()
	s.Cmd = exec.Command(s.argv[0], s.argv[1:]...)
	s.Cmd.Stdout, s.Cmd.Stderr = s.logf, s.logf
	s.Cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
}

// Stop kills the server (its listener and every connection to it: the
// "remote" is unreachable) until Restart.
func (s *SSHD) Stop() {
	if s.Cmd == nil || s.Cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.Cmd.Process.Pid, syscall.SIGKILL)
	_ = s.Cmd.Wait()
	s.Cmd = nil
}

// Restart starts the server again on the same port with the same keys and
// waits until it answers.
func (s *SSHD) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	s.start(t)
	s.waitReady(t)
}

func (s *SSHD) waitReady(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", net.JoinHostPort(s.listen, strconv.Itoa(s.Port)))
		if err == nil {
			r := bufio.NewReader(c)
			line, _ := r.ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "SSH-") {
				return
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(s.logf.Name())
			t.Fatalf("sshd did not start: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ReachVia points the client config (and its known_hosts) at host:port,
// e.g. a relay in front of the server that delays the traffic.
func (s *SSHD) ReachVia(t testing.TB, host string, port int) {
	t.Helper()
	s.clientHost, s.clientPortNum = host, port
	if err := os.WriteFile(s.KnownHost, []byte(fmt.Sprintf("[%s]:%d %s\n", host, port, s.hostKeyLine)), 0o600); err != nil {
		t.Fatal(err)
	}
	s.WriteClientConfig(t, s.UserKey)
}

// StartSSHD starts sshd or skips the test when openssh-server is missing.
// extra lines are appended to its sshd_config (e.g. "SetEnv PATH=…" to put
// the fake agents on the remote PATH).
func StartSSHD(t testing.TB, extra ...string) *SSHD {
	t.Helper()
	return StartSSHDAt(t, "", "127.0.0.1", extra...)
}

// StartSSHDAt is StartSSHD with sshd run inside network namespace netns
// ("": this one), listening on addr (an address of that namespace the
// test can reach, e.g. the far end of a veth pair).
func StartSSHDAt(t testing.TB, netns, addr string, extra ...string) *SSHD {
	t.Helper()
	sshd := "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		t.Skip("openssh-server is not installed (scripts/setup.sh installs it)")
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("no ssh client")
	}
	// Short: ControlPath sockets live under it.
	dir, err := os.MkdirTemp("", "sshd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	s := &SSHD{Dir: dir, User: u.Username, Alias: "reprise-test"}
	keygen := func(path, pass string) {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", pass, "-C", "reprise-test", "-f", path).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	hostKey := filepath.Join(dir, "host_ed25519")
	keygen(hostKey, "")
	s.UserKey = filepath.Join(dir, "id_ed25519")
	keygen(s.UserKey, "")
	pub, err := os.ReadFile(s.UserKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	auth := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(auth, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	s.Port = freePort(t)
	if netns != "" {
		// The port is free here; in a namespace of the test's own, any is.
		s.Port = 20000 + os.Getpid()%20000
	}
	cfg := filepath.Join(dir, "sshd_config")
	extra = withQuietRehash(extra)
	conf := fmt.Sprintf(`Port %d
ListenAddress %s
HostKey %s
AuthorizedKeysFile %s
PidFile %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AllowUsers %s
LogLevel VERBOSE
`, s.Port, addr, hostKey, auth, filepath.Join(dir, "sshd.pid"), s.User) + strings.Join(extra, "\n") + "\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	// sshd needs its privilege-separation directory.
	_ = os.MkdirAll("/run/sshd", 0o755)
	logf, err := os.Create(filepath.Join(dir, "sshd.log"))
	if err != nil {
		t.Fatal(err)
	}
	s.argv = []string{sshd, "-D", "-e", "-f", cfg}
	if netns != "" {
		s.argv = append([]string{"ip", "netns", "exec", netns}, s.argv...)
	}
	s.logf, s.listen = logf, addr
	s.start(t)
	t.Cleanup(func() {
		s.Stop()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("sshd log:\n%s", b)
		}
	})
	hostPub, err := os.ReadFile(hostKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(hostPub))
	s.hostKeyLine = f[0] + " " + f[1]
	s.KnownHost = filepath.Join(dir, "known_hosts")
	s.Config = filepath.Join(dir, "ssh_config")
	s.ReachVia(t, addr, s.Port)
	s.waitReady(t)
	return s
}

// WriteClientConfig (re)writes the client config to use identity key.
func (s *SSHD) WriteClientConfig(t testing.TB, key string) {
	t.Helper()
	conf := fmt.Sprintf(`Host %s
  HostName %s
  Port %d
  User %s
  IdentityFile %s
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  LogLevel ERROR
`, s.Alias, s.clientHost, s.clientPortNum, s.User, key, s.KnownHost)
	if err := os.WriteFile(s.Config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// NetNS creates a network namespace of the test's own (removed at the
// end) and returns its name, or skips where namespaces are not allowed.
func NetNS(t testing.TB, name string) string {
	t.Helper()
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("no ip command (iproute2): this test needs a network namespace")
	}
	ns := fmt.Sprintf("%s%d", name, os.Getpid()%100000)
	_ = exec.Command("ip", "netns", "del", ns).Run() // a leftover of a killed run
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		t.Skipf("network namespaces are not allowed here (ip netns add: %v: %s)", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
	return ns
}

// quietRehash bounds pyenv's rehash lock wait in the sessions of the test's
// sshd. A login here runs the machine user's own profile; on a machine whose
// ~/.bashrc runs `pyenv init`, a login shell killed mid-rehash (tests kill
// remote processes on purpose) leaves pyenv's lock file behind, and every
// later login waits 60 s on it, which reads as a hung connect. sshd applies
// only its first SetEnv line, so the variable joins the test's own line.
const quietRehash = "PYENV_REHASH_TIMEOUT=0"

func withQuietRehash(extra []string) []string {
	out := make([]string, 0, len(extra)+1)
	joined := false
	for _, l := range extra {
		if !joined && strings.HasPrefix(l, "SetEnv ") {
			l += " " + quietRehash
			joined = true
		}
		out = append(out, l)
	}
	if !joined {
		out = append(out, "SetEnv "+quietRehash)
	}
	return out
}

// LockKey makes a new key with passphrase pass the only one the server
// accepts and the only one the client config offers, and returns its file:
// a login must ask for the passphrase (the caller clears SSH_AUTH_SOCK, so
// that no agent answers instead).
func (s *SSHD) LockKey(t testing.TB, pass string) string {
	t.Helper()
	key := filepath.Join(t.TempDir(), "locked")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", pass, "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir, "authorized_keys"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	s.WriteClientConfig(t, key)
	return key
}

// RemoteHome makes the Reprise home of the remote side of a test's sshd
// (the same Unix user as the test; this directory is what separates the
// two). At the end every process of that instance is stopped and the
// directory removed. It lives under the system temp dir, not t.TempDir:
// unix socket paths under it must stay short.
func RemoteHome(t testing.TB) string {
	t.Helper()
	rh, err := os.MkdirTemp("", "rr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		StopInstance(rh)
		os.RemoveAll(rh)
	})
	return rh
}
