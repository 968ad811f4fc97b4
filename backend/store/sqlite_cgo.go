//go:build cgo

package store

import (
	"errors"

	"github.com/mattn/go-sqlite3"
)

// The SQLite error codes the store acts on. They live behind the cgo tag
// because go-sqlite3 defines them only when it is built with cgo; the
// remote binaries (CGO_ENABLED=0, cross-built) never open a store.

func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrBusy
}

func isCorruptCode(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB)
}

func isConstraint(err error) bool {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.ExtendedCode {
	case sqlite3.ErrConstraintPrimaryKey, sqlite3.ErrConstraintUnique, sqlite3.ErrConstraintForeignKey:
		return true
	}
	return false
}

// sqliteDetail is SQLite's own message for err where it has one.
func sqliteDetail(err error) string {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Error()
	}
	return err.Error()
}
