package ptyd

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/ptyclient"
	"github.com/reprise-dev/reprise/backend/ptyproto"
)

// The cwd request reports where a session is now: after the shell cd's,
// and the foreground program's directory while one runs in front.
func TestCwdFollowsShellAndForegroundProgram(t *testing.T) {
	_, sock := startServer(t, Config{})
	c := dial(t, sock, ptyclient.Options{Name: "test"})
	info := open(t, c, "t_cwd", "/bin/sh")
	o := subscribe(t, c, "t_cwd")
	ctx := context.Background()
	cwdOf := func() string {
		t.Helper()
		m, err := c.Cwds(ctx, "t_cwd")
		if err != nil {
			t.Fatal(err)
		}
		return m["t_cwd"]
	}
	if got := cwdOf(); got != info.Cwd {
		t.Fatalf("cwd at start = %q, want %q", got, info.Cwd)
	}
	moved := t.TempDir()
	// The marker is quoted apart in the command, so the terminal's echo of
	// the typed line does not match it: only the shell's output after the cd
	// does (matching the echo raced the cd: "cwd after cd" was the old one).
	c.Input("t_cwd", []byte("cd '"+moved+"' && echo moved''-ok\n"))
	o.waitFor(t, "moved-ok")
	if got := cwdOf(); got != moved {
		t.Fatalf("cwd after cd = %q, want %q", got, moved)
	}
	// A program in front, in a directory of its own: the pane is there.
	front := t.TempDir()
	c.Input("t_cwd", []byte("(cd '"+front+"' && echo front''-ok && exec sleep 30)\n"))
	o.waitFor(t, "front-ok")
	deadline := time.Now().Add(5 * time.Second)
	for cwdOf() != front {
		if time.Now().After(deadline) {
			t.Fatalf("cwd with a foreground program = %q, want %q", cwdOf(), front)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// All sessions at once; an unknown one is an error line.
	all, err := c.Cwds(ctx, "")
	if err != nil || all["t_cwd"] != front {
		t.Fatalf("all cwds = %v, %v", all, err)
	}
	if _, err := c.Cwds(ctx, "t_nope"); err == nil || !strings.Contains(err.Error(), `no session "t_nope"`) {
		t.Fatalf("unknown session: %v", err)
	}
}

// Facts: the login shell and the environment a login shell starts with,
// and stat-only answers about paths — a FIFO is named, never opened (an
// open would block for a writer), and an oversized request is one error.
func TestFactsLoginAndPaths(t *testing.T) {
	// A home of the test's own: its profile is what a login shell reads
	// (and not the machine user's, which may be slow or print anything).
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.WriteFile(filepath.Join(home, ".profile"), []byte("echo 'welcome=noise from the profile'\nREPRISE_TEST_LOGIN='from the profile'; export REPRISE_TEST_LOGIN\n"), 0o600)
	_, sock := startServer(t, Config{})
	c := dial(t, sock, ptyclient.Options{Name: "test"})
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o700)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	paths := []string{file, dir, fifo, filepath.Join(dir, "missing"), filepath.Join(file, "under-a-file"), "relative/x", empty}
	done := make(chan struct{})
	var f *ptyclient.Facts
	var err error
	go func() {
		defer close(done)
		f, err = c.Facts(ctx, true, paths)
	}()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("facts did not answer (a FIFO opened?)")
	}
	if err != nil {
		t.Fatal(err)
	}
	want := []ptyproto.PathStat{
		{Path: file, Exists: true, Kind: "file", Size: 3},
		{Path: dir, Exists: true, Kind: "dir"},
		{Path: fifo, Exists: true, Kind: "other"},
		{Path: filepath.Join(dir, "missing")},
		{Path: filepath.Join(file, "under-a-file")},
		{Path: "relative/x", Err: "not an absolute path"},
		{Path: empty, Exists: true, Kind: "file", Exec: true},
	}
	for i, w := range want {
		if f.Paths[i] != w {
			t.Errorf("path %d: got %+v, want %+v", i, f.Paths[i], w)
		}
	}
	if f.Home != home {
		t.Errorf("home = %q, want %q", f.Home, home)
	}
	if !filepath.IsAbs(f.Shell) {
		t.Errorf("login shell = %q", f.Shell)
	}
	vars := map[string]string{}
	for _, kv := range f.Env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	if vars["HOME"] != home || f.EnvErr != "" {
		t.Errorf("login env without HOME=%s (err %q): %d vars", home, f.EnvErr, len(f.Env))
	}
	// A Bourne-style login shell read the profile; what it printed is not
	// taken for a variable.
	switch filepath.Base(f.Shell) {
	case "bash", "sh", "dash":
		if vars["REPRISE_TEST_LOGIN"] != "from the profile" {
			t.Errorf("the login shell's profile was not read: %q", vars["REPRISE_TEST_LOGIN"])
		}
	}
	for k := range vars {
		if strings.Contains(k, "welcome") || strings.Contains(k, "\n") {
			t.Errorf("profile output taken for a variable: %q", k)
		}
	}

	// Bounded: too many paths, or one too long, is refused whole.
	many := make([]string, ptyproto.MaxFactPaths+1)
	for i := range many {
		many[i] = "/tmp"
	}
	if _, err := c.Facts(ctx, false, many); err == nil || !strings.Contains(err.Error(), "at most 256") {
		t.Fatalf("too many paths: %v", err)
	}
	if _, err := c.Facts(ctx, false, []string{"/" + strings.Repeat("a", ptyproto.MaxFactPathLen)}); err == nil || !strings.Contains(err.Error(), "at most 4096") {
		t.Fatalf("too long a path: %v", err)
	}
	// The connection is still good after the refusals.
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// A login profile that never finishes fails within the request's bound,
// with one line, instead of hanging the request.
func TestFactsLoginShellThatHangs(t *testing.T) {
	dir := t.TempDir()
	sh := filepath.Join(dir, "hangsh")
	os.WriteFile(sh, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := loginEnv(ctx, sh, dir)
	if err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Fatalf("hanging login shell: %v", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("took %s", d)
	}
}

// What a profile started keeps running to its end when the bound kills the
// shell: it is not killed by a closed pipe halfway (pyenv's rehash left its
// lock behind that way, and every later login shell waited on it).
func TestFactsTimeoutLeavesProfileChildrenToFinish(t *testing.T) {
	dir := t.TempDir()
	done := filepath.Join(dir, "finished")
	sh := filepath.Join(dir, "slowsh")
	os.WriteFile(sh, []byte("#!/bin/sh\n(sleep 2; echo late output; echo more >&2; touch '"+done+"') &\nexec sleep 60\n"), 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := loginEnv(ctx, sh, dir); err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Fatalf("slow login shell: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(done); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the profile's child did not finish (killed by its closed output?)")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// factsServer starts a daemon whose HOME is a new directory and whose only
// agent directory is another, out of the home (as a user may set it), in
// variable agentVar; c is a client of it.
func factsServer(t *testing.T, agentVar string) (home, agentDir string, c *ptyclient.Client) {
	t.Helper()
	home, agentDir = t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range agentDirVars {
		t.Setenv(k, "")
	}
	t.Setenv(agentVar, agentDir)
	_, sock := startServer(t, Config{})
	return home, agentDir, dial(t, sock, ptyclient.Options{Name: "test"})
}

// Globs: what a pattern names under a root, readdir and stat only — a FIFO
// in the tree is named, never opened — confined to the home and the
// agents' directories, refused per glob when hostile, and bounded.
func TestFactsGlobs(t *testing.T) {
	home, agentDir, c := factsServer(t, "CODEX_HOME")
	ctx := context.Background()
	day := filepath.Join(agentDir, "sessions", "2026", "12", "02")
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	rollout := filepath.Join(day, "rollout-2026-12-02T07-00-00-0192-abc.jsonl")
	os.WriteFile(rollout, []byte("{}\n"), 0o600)
	if err := syscall.Mkfifo(filepath.Join(day, "rollout-fifo-0192-abc.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(agentDir, "sessions", "2025"), 0o600); err != nil { // where a year directory would be
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(home, ".codex", "sessions"), 0o700)
	outside := t.TempDir()
	pat := "sessions/*/*/*/rollout-*-0192-abc.jsonl"
	globs := []ptyproto.Glob{
		{Root: agentDir, Pattern: pat},
		{Root: filepath.Join(home, ".codex"), Pattern: pat},
		{Root: outside, Pattern: "*"},
		{Root: agentDir, Pattern: "../*"},
		{Root: agentDir, Pattern: strings.Repeat("x", 600)},
		{Root: "relative", Pattern: "*"},
	}
	done := make(chan struct{})
	var f *ptyclient.Facts
	var err error
	go func() {
		defer close(done)
		f, err = c.Look(ctx, []string{rollout}, globs)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("a glob over a FIFO hung the request")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Paths) != 1 || !f.Paths[0].Exists || len(f.Globs) != len(globs) {
		t.Fatalf("answer %+v", f)
	}
	g := f.Globs[0]
	if g.Err != "" || g.Incomplete != "" || len(g.Matches) != 2 {
		t.Fatalf("rollout glob: %+v", g)
	}
	kinds := map[string]string{}
	for _, m := range g.Matches {
		kinds[filepath.Base(m.Path)] = m.Kind
	}
	if kinds[filepath.Base(rollout)] != "file" || kinds["rollout-fifo-0192-abc.jsonl"] != "other" {
		t.Fatalf("matches %+v", g.Matches)
	}
	if g := f.Globs[1]; g.Err != "" || len(g.Matches) != 0 || g.Incomplete != "" {
		t.Fatalf("under the home, nothing there: %+v", g)
	}
	for i, want := range []string{"outside the home", "segment \"..\"", "at most 512", "not an absolute path"} {
		if g := f.Globs[2+i]; !strings.Contains(g.Err, want) || len(g.Matches) != 0 || g.Visited != 0 {
			t.Errorf("glob %+v: want refused with %q", g, want)
		}
	}

	// Too many globs is one error for the whole request.
	many := make([]ptyproto.Glob, ptyproto.MaxFactGlobs+1)
	for i := range many {
		many[i] = ptyproto.Glob{Root: home, Pattern: "*"}
	}
	if _, err := c.Look(ctx, nil, many); err == nil || !strings.Contains(err.Error(), "at most 8") {
		t.Fatalf("too many globs: %v", err)
	}
	// The entries read are bounded per request, shared by its globs.
	wide := filepath.Join(home, "wide")
	os.Mkdir(wide, 0o700)
	for i := 0; i < ptyproto.MaxGlobVisit/ptyproto.MaxFactGlobs+100; i++ {
		if err := os.WriteFile(filepath.Join(wide, strings.Repeat("n", 8)+strconv.Itoa(i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i := range many[:ptyproto.MaxFactGlobs] {
		many[i] = ptyproto.Glob{Root: wide, Pattern: "nothing-*"}
	}
	f, err = c.Look(ctx, nil, many[:ptyproto.MaxFactGlobs])
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, g := range f.Globs {
		total += g.Visited
	}
	if last := f.Globs[len(f.Globs)-1]; total > ptyproto.MaxGlobVisit || last.Incomplete == "" {
		t.Fatalf("visited %d in all (bound %d); last glob %+v", total, ptyproto.MaxGlobVisit, last)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// Contains: whether a file holds one of the daemon's fixed patterns (a
// Gemini model reply) — read-only and bounded: a FIFO (where an open would
// block) is refused unread, a file outside the home and the agents'
// directories is not read, whether named so or reached by a link or "..",
// a scan that stopped at its byte bound answers incomplete (never "no
// reply"), and a pattern the requester makes up is refused.
func TestFactsContains(t *testing.T) {
	home, geminiHome, c := factsServer(t, "GEMINI_CLI_HOME")
	ctx := context.Background()

	chats := filepath.Join(home, ".gemini", "tmp", "proj", "chats")
	if err := os.MkdirAll(chats, 0o700); err != nil {
		t.Fatal(err)
	}
	file := func(dir, name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	reply := file(chats, "reply.jsonl", `{"sessionId":"s1"}`+"\n"+`{"type":"user","content":"hi"}`+"\n"+`{"type":"gemini","content":"ack: hi"}`+"\n")
	prompt := file(chats, "prompt.jsonl", `{"sessionId":"s2"}`+"\n"+`{"type":"user","content":"hi"}`+"\n")
	elsewhere := file(geminiHome, "reply.json", `{"messages":[{"type": "gemini"}]}`)
	big := filepath.Join(chats, "big.jsonl") // a reply only past the byte bound
	bf, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bf.WriteAt([]byte(`{"type":"gemini"}`), 1<<30); err != nil {
		t.Fatal(err)
	}
	bf.Close()
	fifo := filepath.Join(chats, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	secret := file(outside, "secret.json", `{"type":"gemini"}`)
	outFifo := filepath.Join(outside, "fifo")
	if err := syscall.Mkfifo(outFifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(chats, "link.jsonl")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	linkFifo := filepath.Join(chats, "linkfifo.jsonl")
	if err := os.Symlink(outFifo, linkFifo); err != nil {
		t.Fatal(err)
	}
	dotdot := home + "/../" + filepath.Base(outside) + "/secret.json"
	if !strings.HasPrefix(dotdot, home+"/") {
		t.Fatal("bad test path")
	}

	const g = "gemini-reply"
	cases := []struct {
		q          ptyproto.Contains
		found      bool
		incomplete bool
		err        string
	}{
		{ptyproto.Contains{Path: reply, Pattern: g}, true, false, ""},
		{ptyproto.Contains{Path: prompt, Pattern: g}, false, false, ""},
		{ptyproto.Contains{Path: elsewhere, Pattern: g}, true, false, ""},
		{ptyproto.Contains{Path: big, Pattern: g}, false, true, ""},
		{ptyproto.Contains{Path: fifo, Pattern: g}, false, false, "not a regular file"},
		{ptyproto.Contains{Path: secret, Pattern: g}, false, false, "outside the home"},
		{ptyproto.Contains{Path: dotdot, Pattern: g}, false, false, "not a clean absolute path"},
		{ptyproto.Contains{Path: link, Pattern: g}, false, false, "where its links lead"},
		{ptyproto.Contains{Path: linkFifo, Pattern: g}, false, false, "where its links lead"},
		{ptyproto.Contains{Path: "chats/reply.jsonl", Pattern: g}, false, false, "not a clean absolute path"},
		{ptyproto.Contains{Path: reply, Pattern: `"type"`}, false, false, "unknown pattern"},
		{ptyproto.Contains{Path: filepath.Join(chats, "gone.jsonl"), Pattern: g}, false, false, "no such file"},
	}
	run := func(qs []ptyproto.Contains) *ptyclient.Facts {
		t.Helper()
		done := make(chan struct{})
		var f *ptyclient.Facts
		var err error
		go func() {
			defer close(done)
			f, err = c.Look(ctx, nil, nil, qs...)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("a contains hung the request")
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Contains) != len(qs) {
			t.Fatalf("answered %d of %d: %+v", len(f.Contains), len(qs), f)
		}
		return f
	}
	for start := 0; start < len(cases); start += ptyproto.MaxFactContains {
		batch := cases[start:min(start+ptyproto.MaxFactContains, len(cases))]
		var qs []ptyproto.Contains
		for _, tc := range batch {
			qs = append(qs, tc.q)
		}
		f := run(qs)
		for i, tc := range batch {
			r := f.Contains[i]
			if r.Path != tc.q.Path || r.Pattern != tc.q.Pattern || r.Found != tc.found || (r.Incomplete != "") != tc.incomplete ||
				(tc.err == "") != (r.Err == "") || !strings.Contains(r.Err, tc.err) {
				t.Errorf("%s for %q: %+v; want found %v, incomplete %v, err %q", tc.q.Pattern, tc.q.Path, r, tc.found, tc.incomplete, tc.err)
			}
		}
	}

	many := make([]ptyproto.Contains, ptyproto.MaxFactContains+1)
	for i := range many {
		many[i] = ptyproto.Contains{Path: reply, Pattern: g}
	}
	if _, err := c.Look(ctx, nil, nil, many...); err == nil || !strings.Contains(err.Error(), "at most 8") {
		t.Fatalf("too many contains: %v", err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}
