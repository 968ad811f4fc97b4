// Package shellquote turns argv into POSIX shell words and user-typed words
// back into argv.
//
// Join is the only function in Reprise that builds a shell command string:
// anything that passes argv through a shell (the agent runs in the user's
// login shell) quotes it here, so there is one small, fuzzed place where
// quoting can go wrong. Split is its inverse for words a user types into a
// settings field; it splits words and does nothing else.
package shellquote

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote returns s as one POSIX shell word that the shell reads back as
// exactly s.
//
// Every token is single-quoted, even a safe-looking word: bare words would
// be subject to alias expansion and reserved words in command position
// (`if`, zsh's `repeat`), zsh's `=cmd` expansion and bash's `%job` syntax.
// Inside single quotes nothing is special except the quote itself, which is
// written as close, escaped quote, reopen:
//
//	Quote("it's") == `'it'\''s'`
//	Quote("")     == `''`
//
// A NUL byte cannot be carried in argv or through a shell at all. Quote
// copies it through unchanged, so callers validate their input first (the
// agent catalog refuses NUL).
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	quoteTo(&b, s)
	return b.String()
}

func quoteTo(b *strings.Builder, s string) {
	b.WriteByte('\'')
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(`'\''`)
		s = s[i+1:]
	}
	b.WriteString(s)
	b.WriteByte('\'')
}

// Join quotes each element of argv with Quote and joins them with single
// spaces. The result is a simple command for `sh -c` (or bash, zsh, dash,
// ksh) that runs argv exactly; Join of no elements is "".
//
// The output keeps every byte of argv, control characters included: that is
// right for `sh -c`, but a caller that types the command into a terminal
// must make sure argv has no control characters, which the terminal's line
// discipline would act on.
func Join(argv []string) string {
	var b strings.Builder
	for i, s := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		quoteTo(&b, s)
	}
	return b.String()
}

// Errors returned by Split.
var (
	ErrUnterminatedSingleQuote = errors.New("unterminated single quote")
	ErrUnterminatedDoubleQuote = errors.New("unterminated double quote")
	ErrTrailingBackslash       = errors.New("trailing backslash")
	ErrControlCharacter        = errors.New("control character")
	ErrInvalidUTF8             = errors.New("invalid UTF-8")
)

// Split parses user-typed shell words, such as `--resume`, `threads
// continue`, `--flag "two words"` or `'single quoted'`, into argv.
//
// It follows the POSIX rules for quoting and word splitting: blanks (space,
// tab, newline) separate words; a backslash outside quotes takes the next
// character literally; single quotes take everything up to the next single
// quote literally; inside double quotes a backslash escapes only $ ` " \ and
// newline; a backslash-newline pair is removed; a pair of quotes with
// nothing between them is an empty word.
//
// Split performs no expansion and knows no operators: $, globs, ~, `…`,
// ;, |, &, <, >, (, ) and # are ordinary characters. Words are only ever
// passed on as argv (and re-quoted by Join), so nothing typed here can run.
//
// Control characters are refused anywhere except tab and newline as
// separators, and so is invalid UTF-8. Errors are one line and wrap
// ErrUnterminatedSingleQuote, ErrUnterminatedDoubleQuote,
// ErrTrailingBackslash, ErrControlCharacter or ErrInvalidUTF8.
func Split(s string) ([]string, error) {
	if !utf8.ValidString(s) {
		return nil, ErrInvalidUTF8
	}
	var (
		words  []string
		cur    strings.Builder
		inWord bool // distinguishes an empty word ('') from no word
	)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case ' ', '\t', '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			i += size
		case '\\':
			if i+1 == len(s) {
				return nil, ErrTrailingBackslash
			}
			next, n := utf8.DecodeRuneInString(s[i+1:])
			i += 1 + n
			if next == '\n' {
				continue // line continuation: removed, and it does not start a word
			}
			if err := checkRune(next); err != nil {
				return nil, err
			}
			cur.WriteRune(next)
			inWord = true
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, ErrUnterminatedSingleQuote
			}
			lit := s[i+1 : i+1+end]
			if err := checkString(lit); err != nil {
				return nil, err
			}
			cur.WriteString(lit)
			inWord = true
			i += end + 2
		case '"':
			n, err := doubleQuoted(&cur, s[i+1:])
			if err != nil {
				return nil, err
			}
			inWord = true
			i += 1 + n
		default:
			if err := checkRune(r); err != nil {
				return nil, err
			}
			cur.WriteRune(r)
			inWord = true
			i += size
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// doubleQuoted writes the contents of a double-quoted string that starts
// at s (just after the opening quote) and returns how many bytes of s it
// used, closing quote included.
func doubleQuoted(cur *strings.Builder, s string) (int, error) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			return i + 1, nil
		case r == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0:
			if s[i+1] != '\n' {
				cur.WriteByte(s[i+1])
			}
			i += 2
		default:
			// Includes a backslash before any other character, which
			// stays as it is.
			if err := checkRune(r); err != nil {
				return 0, err
			}
			cur.WriteRune(r)
			i += size
		}
	}
	return 0, ErrUnterminatedDoubleQuote
}

func checkRune(r rune) error {
	if unicode.IsControl(r) {
		return fmt.Errorf("%w %U not allowed", ErrControlCharacter, r)
	}
	return nil
}

func checkString(s string) error {
	for _, r := range s {
		if err := checkRune(r); err != nil {
			return err
		}
	}
	return nil
}
