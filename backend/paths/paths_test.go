package paths

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A home that cannot be made is one line that names it once and says what it is for (it read
// "create F: mkdir F: not a directory", the path twice and no word of a home).
func TestEnsureErrorNamesTheHomeOnce(t *testing.T) {
	f := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{f, filepath.Join(f, "sub")} {
		err := Home{Dir: dir}.Ensure()
		if err == nil {
			t.Fatalf("Ensure(%s): no error", dir)
		}
		msg := err.Error()
		if !strings.Contains(msg, "as the Reprise home") || strings.Count(msg, dir) != 1 || strings.Contains(msg, "\n") {
			t.Errorf("Ensure(%s): %q, want one line naming the home once", dir, msg)
		}
	}
}
