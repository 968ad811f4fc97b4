package inbox

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPendingReadsWithoutConsuming(t *testing.T) {
	in := Inbox{Dir: filepath.Join(t.TempDir(), "inbox")}
	if recs, err := in.Pending(); err != nil || len(recs) != 0 {
		t.Fatalf("missing inbox: %v %v", recs, err)
	}
	for _, r := range []string{`{"n":1}`, `{"n":2}`, `{"n":3}`} {
		if err := in.Put([]byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(in.Dir, ".half.json.tmp"), []byte("{"), 0o600) // a write in progress
	recs, err := in.Pending()
	if err != nil || len(recs) != 3 || string(recs[0].Data) != `{"n":1}` || string(recs[2].Data) != `{"n":3}` {
		t.Fatalf("pending: %+v %v", recs, err)
	}
	again, _ := in.Pending()
	if len(again) != 3 {
		t.Fatalf("pending consumed records: %d left", len(again))
	}
	var seen []string
	n, err := in.Drain(func(name string, rec []byte) error { seen = append(seen, string(rec)); return nil })
	if err != nil || n != 3 || seen[0] != `{"n":1}` {
		t.Fatalf("drain after pending: %d %v %v", n, seen, err)
	}
}
