package cli

import (
	"strings"
	"testing"
)

func TestHostsAddListRemove(t *testing.T) {
	home := t.TempDir()
	if code, out, errs := runCLI("hosts", "add", "box", "--ssh", "me@box.example:2222", "--home", home); code != 0 || !strings.Contains(out, "added host box") {
		t.Fatalf("add: %d %q %q", code, out, errs)
	}
	code, out, _ := runCLI("hosts", "list", "--home", home)
	if code != 0 || !strings.Contains(out, "box") || !strings.Contains(out, "me@box.example:2222") {
		t.Fatalf("list: %d %q", code, out)
	}
	// Bad input: one line, no crash.
	for _, args := range [][]string{
		{"hosts", "add", "box", "--ssh", "other"},              // duplicate
		{"hosts", "add", "b2", "--ssh", "-oProxyCommand=evil"}, // an option, not a destination
		{"hosts", "add", "b3"},                                 // no --ssh
		{"hosts", "add", "bad name", "--ssh", "x"},             // name
		{"hosts", "remove", "nope"},                            // unknown
	} {
		code, out, errs := runCLI(append(args, "--home", home)...)
		if code == 0 {
			t.Errorf("%v succeeded: %q", args, out)
		}
		oneErrorLine(t, args, out, errs)
	}
	if code, out, errs := runCLI("hosts", "remove", "box", "--home", home); code != 0 {
		t.Fatalf("remove: %d %q %q", code, out, errs)
	}
	if _, out, _ := runCLI("hosts", "list", "--json", "--home", home); strings.TrimSpace(out) != "[]" {
		t.Errorf("list after remove: %q", out)
	}
}
