package web

import (
	"strings"
	"testing"
)

// Settings → Hosts goes through hosts.add/list/remove: the same store and
// checks as `reprise hosts`, with each host's link status (unknown until a
// terminal uses it).
func TestHostsMethodsAddListRemove(t *testing.T) {
	s := startServer(t)
	p := connect(t, s, "")
	var hs []HostInfo
	if err := p.call("hosts.list", nil, &hs); err != nil || len(hs) != 0 {
		t.Fatalf("hosts.list on a new home = %v, %v; want none", hs, err)
	}
	var added HostInfo
	if err := p.call("hosts.add", map[string]any{"name": "devbox", "ssh": "me@127.0.0.1:2222"}, &added); err != nil {
		t.Fatal(err)
	}
	if added.Name != "devbox" || added.SSH != "me@127.0.0.1:2222" || added.Status.State != "" {
		t.Fatalf("hosts.add = %+v", added)
	}
	for _, bad := range []map[string]any{
		{"name": "devbox", "ssh": "other"},           // duplicate
		{"name": "local", "ssh": "x"},                // reserved name
		{"name": "ok", "ssh": ""},                    // no destination
		{"name": "ok", "ssh": "-oProxyCommand=evil"}, // an ssh option, not a destination
	} {
		if err := p.call("hosts.add", bad, nil); err == nil {
			t.Errorf("hosts.add %v: no error", bad)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("hosts.add %v: error is not one line: %q", bad, err)
		}
	}
	if err := p.call("hosts.list", nil, &hs); err != nil || len(hs) != 1 || hs[0].Name != "devbox" {
		t.Fatalf("hosts.list = %+v, %v; want devbox only", hs, err)
	}
	if err := p.call("hosts.remove", map[string]any{"name": "devbox"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.call("hosts.remove", map[string]any{"name": "devbox"}, nil); err == nil {
		t.Error("removing a removed host: no error")
	}
	if err := p.call("hosts.list", nil, &hs); err != nil || len(hs) != 0 {
		t.Fatalf("hosts.list after remove = %+v, %v", hs, err)
	}
}
