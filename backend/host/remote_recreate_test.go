package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/bindings"
)

// A remote agent whose folder vanished on its host is offered what a local
// one is: "Recreate folder and resume". The folder is made again on the
// remote (0700, as locally), the agent resumes there, in the same pane, and
// the conversation (the codeword) comes back. Before, a remote pane only
// said the folder was gone.
func TestRemoteVanishedFolderRecreatedThere(t *testing.T) {
	h, _, rh := remoteHost(t)
	ctx := context.Background()
	work := filepath.Join(rh, "proj", "sub")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	res, v, _ := remoteAgent(t, h, work, "FIG-18")
	// The folder goes, then the remote daemon (and the agent with it).
	if err := os.RemoveAll(filepath.Join(rh, "proj")); err != nil {
		t.Fatal(err)
	}
	killRemoteDaemon(t, h)
	var b api.Binding
	waitUntil(t, "the offer to recreate the folder", 30*time.Second, func() bool {
		bs, err := h.store.GetBinding(ctx, res.TerminalID)
		if err != nil || bs.EndReason != bindings.TerminalExited || h.HostStatus("box").State != "up" {
			return false
		}
		b = h.bindingToAPI(ctx, bs)
		return b.RecreateCwd != ""
	})
	if b.Candidate || b.RecreateCwd != work || !strings.Contains(b.Unavailable, work+" on box is gone") || !strings.Contains(b.Unavailable, "not the files") {
		t.Fatalf("binding with its remote folder gone: %+v", b)
	}
	// A plain Resume still refuses, with the reason, and changes nothing.
	if _, err := h.Resume(ctx, res.TerminalID); err == nil || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("resume without recreating: %v", err)
	}
	r, err := h.ResumeWith(ctx, api.ResumeRequest{TerminalID: res.TerminalID, RecreateCwd: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(rh, "proj"), work} {
		if st, err := os.Stat(d); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
			t.Fatalf("recreated folder %s: %v %v, want a 0700 directory", d, st, err)
		}
	}
	runningOnBox(t, h, r.TerminalID, work)
	codewordBack(t, v, r, res.PaneID, "FIG-18")
}
