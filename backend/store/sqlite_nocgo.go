//go:build !cgo

package store

// Without cgo go-sqlite3 is a stub whose driver refuses to open anything
// ("requires cgo"), so Open fails with that line and no SQLite error code
// ever reaches these. Such a build is only the GUI-free binary uploaded to
// remote hosts, whose subcommands (ptyd, ptyd connect, inbox drain, hook)
// use no store.

func isBusy(error) bool        { return false }
func isCorruptCode(error) bool { return false }
func isConstraint(error) bool  { return false }

func sqliteDetail(err error) string { return err.Error() }
