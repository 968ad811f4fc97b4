package web

import (
	"encoding/json"
	"testing"

	"github.com/reprise-dev/reprise/backend/api"
)

// The typed results replaced maps: the page must get the same bytes.
func TestResultsEncodeAsTheMapsTheyReplace(t *testing.T) {
	l := &api.Layout{Version: 3, Tabs: []*api.Tab{{ID: "tab_1", Root: &api.Node{Type: api.NodePane, ID: "p", TerminalID: "t_1"}}}}
	ts := []api.Terminal{{ID: "t_1", Argv: []string{"sh"}, Status: api.StatusRunning}}
	d := api.DaemonStatus{State: "up", PID: 7}
	for _, c := range []struct {
		typed any
		old   map[string]any
	}{
		{HelloResult{Version: api.Version, Layout: l, Terminals: ts, Daemon: d}, map[string]any{"version": api.Version, "layout": l, "terminals": ts, "daemon": d}},
		{HelloResult{Version: api.Version}, map[string]any{"version": api.Version, "layout": (*api.Layout)(nil), "terminals": []api.Terminal(nil), "daemon": api.DaemonStatus{}}},
		{AttachResult{Handle: 2, Terminal: ts[0], ReplayBytes: 99}, map[string]any{"handle": uint32(2), "terminal": ts[0], "replayBytes": int64(99)}},
		{ForegroundResult{Busy: true, Command: "vim"}, map[string]any{"busy": true, "command": "vim"}},
		{SettingValue{Value: "auto"}, map[string]any{"value": "auto"}},
		{Empty{}, map[string]any{}},
	} {
		got, err := json.Marshal(c.typed)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(c.old)
		if string(got) != string(want) {
			t.Errorf("%T encodes as\n%s\nthe page got\n%s", c.typed, got, want)
		}
	}
}

// Params decode as the anonymous structs did: keys match case-insensitively
// (resize once had no tags, so "cols" and "Cols" both worked), absent
// params are {}, and a wrong type is "bad params".
func TestParamsDecodeAsBefore(t *testing.T) {
	p, err := decode[ResizeParams](json.RawMessage(`{"terminalId":"t_1","Cols":80,"rows":24}`))
	if err != nil || p.Cols != 80 || p.Rows != 24 || p.TerminalID != "t_1" {
		t.Errorf("resize params: %+v, %v", p, err)
	}
	if _, err := decode[Empty](nil); err != nil {
		t.Errorf("absent params: %v", err)
	}
	if _, err := decode[PaneParams](json.RawMessage(`{"paneId":5}`)); err == nil {
		t.Error("a number for paneId was accepted")
	}
	for _, m := range methods {
		if m.params.Kind().String() != "struct" {
			t.Errorf("method %s: params %s are not an object", m.name, m.params)
		}
	}
}
