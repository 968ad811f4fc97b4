package remote

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/internal/testenv"
)

// The binary for a probed remote: the static one for its platform beside
// the host's reprise, else the host's own for its own platform, else one
// clear line naming the file looked for.
func TestRemoteBinarySelection(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "reprise")
	os.WriteFile(exe, []byte("host"), 0o755)
	other := "arm64"
	if runtime.GOARCH == "arm64" {
		other = "amd64"
	}
	if got, err := RemoteBinary(exe, runtime.GOOS, runtime.GOARCH); err != nil || got != exe {
		t.Errorf("own platform, no static build: %q, %v; want the host's binary", got, err)
	}
	_, err := RemoteBinary(exe, "linux", other)
	want := filepath.Join(dir, "remote", "reprise-linux-"+other)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "no reprise for linux/"+other) || !strings.Contains(err.Error(), want) {
		t.Errorf("missing linux/%s: %v; want one line naming %s", other, err, want)
	}
	if _, err := RemoteBinary(exe, "darwin", "arm64"); err == nil {
		t.Error("darwin/arm64 with no binary: accepted")
	}
	os.MkdirAll(filepath.Join(dir, "remote"), 0o755)
	for _, n := range []string{"reprise-linux-" + other, "reprise-" + runtime.GOOS + "-" + runtime.GOARCH} {
		os.WriteFile(filepath.Join(dir, "remote", n), []byte(n), 0o755)
	}
	if got, err := RemoteBinary(exe, "linux", other); err != nil || got != want {
		t.Errorf("linux/%s: %q, %v; want %s", other, got, err, want)
	}
	if got, err := RemoteBinary(exe, runtime.GOOS, runtime.GOARCH); err != nil || filepath.Base(got) != "reprise-"+runtime.GOOS+"-"+runtime.GOARCH {
		t.Errorf("own platform with a static build: %q, %v; want the static one (no libc to match)", got, err)
	}
	// A directory of that name is not a binary.
	os.MkdirAll(filepath.Join(dir, "remote", "reprise-linux-riscv64"), 0o755)
	if _, err := RemoteBinary(exe, "linux", "riscv64"); err == nil && runtime.GOARCH != "riscv64" {
		t.Error("a directory was taken for a binary")
	}
}

// A real bootstrap of the CGO_ENABLED=0 build: the host's reprise has the
// static linux/amd64 binary beside it (as make build installs it); the probe
// finds linux x86_64, that binary is uploaded (checksum verified there), and
// the remote daemon it starts runs a shell over the link.
func TestBootstrapStaticBinaryRunsPtyd(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the sshd harness is this machine: linux/amd64 only")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "reprise")
	if err := os.Symlink(reprise, exe); err != nil {
		t.Fatal(err)
	}
	static := filepath.Join(dir, RemoteBinaryDir, "reprise-linux-amd64")
	buildStatic(t, static, "amd64", elf.EM_X86_64)
	s := testenv.StartSSHD(t)
	tg := target(t, s)
	// A hang guard only: on a loaded machine a login shell whose rc file
	// waits on a lock (pyenv rehash here) can take most of a minute.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	up, p, err := tg.Bootstrap(ctx, exe)
	if err != nil || !up || p.GOOS != "linux" || p.GOARCH != "amd64" {
		t.Fatalf("bootstrap: uploaded %v, probe %s/%s, %v", up, p.GOOS, p.GOARCH, err)
	}
	want, _ := os.ReadFile(static)
	got, _ := os.ReadFile(filepath.Join(tg.RemoteHome, "bin", "reprise"))
	if !bytes.Equal(got, want) {
		t.Fatalf("the remote has %d bytes, want the static binary's %d", len(got), len(want))
	}
	if up, _, err := tg.Bootstrap(ctx, exe); err != nil || up {
		t.Fatalf("second bootstrap: uploaded %v, %v; want it up to date", up, err)
	}
	c, _, err := tg.Dial(ctx, ptyclient.Options{Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The daemon answering is the static binary's.
	dexe, err := os.ReadFile("/proc/" + strconv.Itoa(c.DaemonPID) + "/exe")
	if err != nil || !bytes.Equal(dexe, want) {
		t.Fatalf("the remote daemon (pid %d) runs another binary (%d bytes, %v)", c.DaemonPID, len(dexe), err)
	}
	if _, err := c.Open(ctx, ptyclient.OpenRequest{ID: "t_s1", Argv: []string{"/bin/sh", "-c", "echo static-$((6*7)); exec sleep 600"}, Cwd: "/", Env: []string{"PATH=/usr/bin:/bin"}, Cols: 80, Rows: 24}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	seen := make(chan struct{}, 1)
	if _, err := c.Subscribe(ctx, "t_s1", ptyclient.SubscribeOptions{OnData: func(b []byte) {
		out.Write(b)
		if strings.Contains(out.String(), "static-42") {
			select {
			case seen <- struct{}{}:
			default:
			}
		}
	}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-seen:
	case <-ctx.Done():
		t.Fatalf("no output from the static daemon's shell: %q", out.String())
	}
}

// The linux/arm64 binary bootstrap uploads to an arm64 remote, run as such
// a remote runs it, on this amd64 machine under qemu-user (no binfmt here,
// so the daemon is started directly rather than spawned by `ptyd connect`,
// whose re-exec of itself would need it): its daemon opens a pty and runs
// a shell, and `ptyd connect` (what ssh runs there) relays the protocol,
// handing the channel to the daemon as it does natively.
func TestArm64BinaryRunsDaemonUnderQemu(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("runs the arm64 build under qemu-user on linux/amd64")
	}
	qemu, err := exec.LookPath("qemu-aarch64-static")
	if err != nil {
		t.Skip("qemu-aarch64-static is not installed (scripts/setup.sh installs qemu-user-static)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "reprise-linux-arm64")
	buildStatic(t, bin, "arm64", elf.EM_AARCH64)
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var dlog bytes.Buffer
	daemon := exec.Command(qemu, bin, "ptyd", "--home", home)
	daemon.Stdout, daemon.Stderr = &dlog, &dlog
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = daemon.Process.Kill()
		_ = daemon.Wait()
	})
	relay := exec.CommandContext(ctx, qemu, bin, "ptyd", "connect", "--no-start", "--home", home)
	var rerr tailBuffer
	relay.Stderr = &rerr
	w, err := relay.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := relay.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// The daemon's socket appears once it is up (qemu is slow to start it).
	sock := paths.Home{Dir: home}.PtydSocket()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the arm64 daemon made no socket at %s in a minute: %s", sock, dlog.String())
		}
	}
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	conn := &pipeConn{r: r, w: w, cmd: relay, exited: make(chan struct{})}
	go func() { conn.setExit(relay.Wait()) }()
	c, err := ptyclient.NewClient(conn, ptyclient.Options{Name: "test"})
	if err != nil {
		t.Fatalf("hello through the arm64 relay: %v (%s)", err, rerr.String())
	}
	defer c.Close()
	if c.DaemonPID != daemon.Process.Pid {
		t.Fatalf("the daemon answering is pid %d, want the arm64 one %d", c.DaemonPID, daemon.Process.Pid)
	}
	if _, err := c.Open(ctx, ptyclient.OpenRequest{ID: "t_arm", Argv: []string{"/bin/sh", "-c", "echo arm-$((6*7)); stty size; exec cat"}, Cwd: "/", Env: []string{"PATH=/usr/bin:/bin"}, Cols: 100, Rows: 30}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var out bytes.Buffer
	if _, err := c.Subscribe(ctx, "t_arm", ptyclient.SubscribeOptions{OnData: func(b []byte) {
		mu.Lock()
		out.Write(b)
		mu.Unlock()
	}}); err != nil {
		t.Fatal(err)
	}
	waitFor := func(want string) {
		t.Helper()
		for {
			mu.Lock()
			s := out.String()
			mu.Unlock()
			if strings.Contains(s, want) {
				return
			}
			if ctx.Err() != nil {
				t.Fatalf("no %q from the arm64 daemon's shell: %q", want, s)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("arm-42")
	waitFor("30 100") // the pty's size, set by the arm64 daemon's ioctl
	if err := c.Input("t_arm", []byte("typed-through\n")); err != nil {
		t.Fatal(err)
	}
	waitFor("typed-through\r\ntyped-through") // the tty's echo, then cat's copy
}

// buildStatic builds the remote binary for linux/goarch as make build does
// (CGO_ENABLED=0) into out, and checks it is static and for that machine.
func buildStatic(t *testing.T, out, goarch string, machine elf.Machine) {
	t.Helper()
	build := exec.Command("go", "build", "-trimpath", "-o", out, testenv.CLIPackage)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+goarch)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 linux/%s build: %v\n%s", goarch, err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if libs, _ := f.ImportedLibraries(); len(libs) != 0 {
		t.Fatalf("the remote binary links %v; want a static binary", libs)
	}
	if f.Machine != machine {
		t.Fatalf("the linux/%s build is for %v, want %v", goarch, f.Machine, machine)
	}
}
