// Package ptyproto is the wire protocol between the host and the pty daemon
// (reprise ptyd). It is deliberately small and versioned: every frame is a
// length-prefixed JSON header followed by raw payload bytes, so pty output
// crosses the socket as bytes, never base64 or Go strings.
//
// Frame layout (all integers big-endian):
//
//	[u32 header length][u32 payload length][header JSON][payload]
//
// The first frame on a connection is a Hello from the client; the daemon
// answers with its own Hello or with an Error naming both versions.
//
// The two frames of the hot path, output (d→c) and ack (c→d), have a binary
// form when both hellos list FeatureBinary: a header length of 0 (never a
// valid JSON frame, so an older peer would refuse it rather than misread it)
// and then
//
//	[u32 0][u32 body length][u8 kind][u8 session id length][session id][rest]
//
// kind 1 output: rest = pty bytes; kind 2 ack: rest = u64 bytes consumed.
// No JSON is encoded or decoded per chunk of output.
package ptyproto

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
)

// FeatureBinary, in both hellos' Features: output and ack frames go binary.
const FeatureBinary = "bin1"

// FeatureAckRate, in the daemon's hello: an ack may carry the reader's own
// measure of how fast it consumes output while it has output to consume
// (Header.Rate; a binary ack of 16 bytes), and the daemon sizes the window
// from it (docs/wire.md "Flow control"). A client sends it only to a daemon
// that lists the feature: an older one refuses a 16-byte binary ack.
const FeatureAckRate = "rate1"

// FeatureAckQueue, in the daemon's hello: an ack with a rate may also carry
// how many bytes the reader still has queued, received but not yet consumed
// (Header.Queued; a binary ack of 24 bytes). The daemon grows or shrinks the
// window to keep that queue near WindowTime of the reader's rate (docs/wire.md
// "Flow control"). Sent only to a daemon that lists the feature.
const FeatureAckQueue = "queue1"

// FeatureHandoff, in the hello of `reprise ptyd connect` (the relay at the
// far end of an ssh channel): it offers to hand the channel's stdio to the
// daemon instead of copying every byte between them. In the daemon's hello:
// it takes the offer. The relay then sends one THandoff frame with the two
// file descriptors attached (SCM_RIGHTS: the channel's read end first, its
// write end second), the daemon answers TOK or TError on that connection and
// serves the protocol on the descriptors as on a connection of their own —
// the host's hello comes next on them. The relay's connection stays open
// until the daemon is done with the descriptors, then the daemon closes it.
// A daemon that predates the feature answers a plain hello; the relay then
// dials again and copies bytes as before (docs/wire.md "Flow control over a
// link").
const FeatureHandoff = "handoff1"

// Binary frame kinds.
const (
	binOutput = 1
	binAck    = 2
)

// Version is the protocol version. A daemon and a client with different
// versions refuse each other in the handshake.
const Version = 1

// Limits that bound what a peer can make the other allocate.
const (
	MaxHeader  = 64 << 10 // 64 KiB of JSON is far more than any header needs
	MaxPayload = 1 << 20  // output frames are capped at 64 KiB; input and preambles may be larger
	// MaxChunk is the most output the daemon puts into one frame.
	MaxChunk = 64 << 10
)

// Frame types.
const (
	THello       = "hello"       // c→d {version, client} / d→c {version, pid}
	TError       = "error"       // d→c {req, error}
	TOK          = "ok"          // d→c {req} generic success
	TOpen        = "open"        // c→d {req, session, argv, cwd, env, cols, rows, log}; payload = preamble
	TOpened      = "opened"      // d→c {req, info}
	TInput       = "input"       // c→d {session}; payload = bytes for the pty
	TResize      = "resize"      // c→d {req, session, cols, rows}
	TSignal      = "signal"      // c→d {req, session, signal}
	TClose       = "close"       // c→d {req, session, keepLog}
	TList        = "list"        // c→d {req} / d→c {req, sessions}
	TCollect     = "collect"     // c→d {req, session}: forget an exited session
	TSubscribe   = "subscribe"   // c→d {req, session, lines} → TSubscribed then TOutput frames
	TSubscribed  = "subscribed"  // d→c {req, session, replay}
	TUnsubscribe = "unsubscribe" // c→d {req, session}
	TOutput      = "output"      // d→c {session}; payload = pty bytes
	TAck         = "ack"         // c→d {session, bytes}: output bytes consumed
	TExit        = "exit"        // d→c {session, info}: a session's process ended
	TPing        = "ping"        // c→d {req} → TOK
	// TLink tells the daemon the round-trip time the client measured on
	// its link (an ssh channel): c→d {rtt}, no reply. The daemon sizes
	// this connection's flow-control windows to cover it (docs/wire.md
	// "Flow control over a link"). A daemon that predates it answers an
	// error with no request id, which clients ignore.
	TLink = "link"
	// TCwd asks where each live session is now: c→d {req, s?} → d→c {req,
	// cwds}. The directory is the foreground process's (the shell's when
	// nothing else runs in front), read from the daemon machine's /proc.
	TCwd = "cwd"
	// TFacts asks about the daemon's machine: c→d {req, login?, paths?,
	// globs?, contains?} → d→c {req, facts}. login: the user's login shell
	// and the environment a login shell there starts with; paths: whether
	// each exists (stat only, never opened); globs: the files a pattern
	// names under a root (readdir and stat only, bounded: boundglob);
	// contains: whether a file holds one of a fixed set of patterns
	// (read-only, bounded: chatscan).
	// docs/wire.md "Daemon facts".
	TFacts = "facts"
	// TLogTail reads the scrollback log a session left on the daemon's disk
	// when it is no longer one of the daemon's sessions (its daemon was
	// killed, the machine rebooted): c→d {req, session, n: at most n bytes}
	// → d→c {req, session, log: a log exists, n: the log's whole size, mod:
	// its last write in unix ms}; payload = the last bytes of the log, at
	// most n and the daemon's replay budget. A host on another machine
	// restores a lost remote pane from it.
	TLogTail = "logtail"
	// TLogRemove deletes such a log once the host has restored it
	// elsewhere: c→d {req, session} → TOK.
	TLogRemove = "logrm"
	// THandoff is the relay's one frame after a hello with FeatureHandoff
	// (see there): c→d {}, with two file descriptors attached → TOK or
	// TError.
	THandoff = "handoff"
)

// Limits of a facts request: what one request may ask, so a hostile or
// buggy peer cannot make the daemon stat without end.
const (
	MaxFactPaths   = 256
	MaxFactPathLen = 4096
	// MaxFactGlobs globs per request, sharing MaxGlobVisit directory
	// entries read (each pattern's own bounds are boundglob's).
	MaxFactGlobs = 8
	MaxGlobVisit = 100_000
	// MaxFactContains contains questions per request (each scan's byte
	// bound is chatscan's).
	MaxFactContains = 8
)

// Header is the JSON part of a frame. One struct for all frame types keeps
// the decoder (and its fuzz target) simple; unused fields are omitted.
type Header struct {
	Type    string `json:"t"`
	Req     uint64 `json:"r,omitempty"`
	Session string `json:"s,omitempty"`

	Version int    `json:"v,omitempty"`
	Client  string `json:"client,omitempty"`
	PID     int    `json:"pid,omitempty"`
	Error   string `json:"err,omitempty"`

	Argv    []string `json:"argv,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	Env     []string `json:"env,omitempty"`
	Cols    uint16   `json:"cols,omitempty"`
	Rows    uint16   `json:"rows,omitempty"`
	Log     bool     `json:"log,omitempty"`
	KeepLog bool     `json:"keepLog,omitempty"`
	Signal  string   `json:"sig,omitempty"`
	Bytes   int64    `json:"n,omitempty"`
	// Rate, on ack (FeatureAckRate): bytes/s the reader consumes while
	// busy; 0: not measured.
	Rate int64 `json:"rate,omitempty"`
	// Queued, on ack (FeatureAckQueue): bytes the reader has received and
	// not yet consumed; nil: not reported.
	Queued *int64 `json:"queued,omitempty"`
	Replay int64  `json:"replay,omitempty"`
	// Lines, on subscribe: replay at most the last Lines lines of the
	// buffer (0: all of it). A daemon that predates it replays everything.
	Lines int `json:"lines,omitempty"`
	// Resume, on subscribe: replay from absolute output offset Offset
	// instead of the last Lines (a client whose link dropped asks for what
	// it missed). On subscribed, Offset is the absolute offset of the first
	// replayed byte; greater than the requested one means the gap between
	// was overwritten in the replay ring.
	Resume bool  `json:"resume,omitempty"`
	Offset int64 `json:"off,omitempty"`
	// Mod, on logtail: when the log was last written (unix ms).
	Mod int64 `json:"mod,omitempty"`
	// RTT, on link: the link's round-trip time in microseconds.
	RTT int64 `json:"rtt,omitempty"`

	Info     *SessionInfo  `json:"info,omitempty"`
	Sessions []SessionInfo `json:"sessions,omitempty"`

	// Cwds, on a cwd reply: session id → its current directory.
	Cwds map[string]string `json:"cwds,omitempty"`
	// Login, Paths, Globs and Contains, on a facts request; Facts on its
	// reply.
	Login    bool       `json:"login,omitempty"`
	Paths    []string   `json:"paths,omitempty"`
	Globs    []Glob     `json:"globs,omitempty"`
	Contains []Contains `json:"contains,omitempty"`
	Facts    *Facts     `json:"facts,omitempty"`

	// Features, on hello: what this side speaks beyond Version (FeatureBinary).
	// A peer that predates it sends none and ignores them.
	Features []string `json:"feat,omitempty"`
}

// Facts is what the daemon tells about its machine (TFacts).
type Facts struct {
	Home string `json:"home,omitempty"` // the daemon user's home directory
	// Shell and Env, when asked (login): the user's login shell (from the
	// password database) and the environment a login shell starts with
	// (KEY=VALUE). EnvErr says why Env is empty.
	Shell  string     `json:"shell,omitempty"`
	Env    []string   `json:"env,omitempty"`
	EnvErr string     `json:"envErr,omitempty"`
	Paths  []PathStat `json:"paths,omitempty"` // one per requested path, in order
	// Globs: one per requested glob, in order. A daemon that predates
	// globs answers none.
	Globs []GlobResult `json:"globs,omitempty"`
	// Contains: one per requested contains, in order. A daemon that
	// predates it answers none.
	Contains []ContainsResult `json:"contains,omitempty"`
}

// Contains asks whether the file at Path holds Pattern — the name of one
// of the daemon's fixed patterns (chatscan: "gemini-reply"), never a
// pattern of the requester's.
type Contains struct {
	Path    string `json:"path"`
	Pattern string `json:"pattern"`
}

// ContainsResult is one contains' answer: Found, or not — and then
// Incomplete says why the scan stopped before the end of the file (its
// byte or time bound), so no match there does not mean none. Err: the
// answer is unknown — refused (not a clean absolute path, outside the home
// and the agents' directories, an unknown pattern) or not read (not
// there, not a regular file, permission denied); nothing was scanned.
type ContainsResult struct {
	Path       string `json:"path"`
	Pattern    string `json:"pattern"`
	Found      bool   `json:"found,omitempty"`
	Incomplete string `json:"incomplete,omitempty"`
	Err        string `json:"err,omitempty"`
}

// Glob asks which paths under Root (a literal directory) Pattern names
// (relative, "/"-separated, each segment a filepath.Match pattern).
type Glob struct {
	Root    string `json:"root"`
	Pattern string `json:"pattern"`
}

// GlobResult is one glob's answer. Incomplete says why the walk stopped
// before it had looked everywhere (a bound, the time limit, a directory it
// could not read): then no match does not mean there is none. Err: the
// glob was refused (a bad pattern, a root outside the home and the agents'
// directories) and nothing was read.
type GlobResult struct {
	Root       string      `json:"root"`
	Pattern    string      `json:"pattern"`
	Matches    []GlobMatch `json:"matches,omitempty"`
	Visited    int         `json:"visited,omitempty"`
	Incomplete string      `json:"incomplete,omitempty"`
	Err        string      `json:"err,omitempty"`
}

// GlobMatch is one path a glob names, as stat(2) sees it.
type GlobMatch struct {
	Path string `json:"path"`
	Kind string `json:"kind"` // "file", "dir" or "other" (never opened)
	Size int64  `json:"size,omitempty"`
}

// PathStat is one path of a facts request, as stat(2) sees it (symlinks
// followed).
type PathStat struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists,omitempty"`
	// Kind: "file", "dir" or "other" (a FIFO, socket or device).
	Kind string `json:"kind,omitempty"`
	Size int64  `json:"size,omitempty"`
	Exec bool   `json:"exec,omitempty"` // a file with an execute bit
	// Err: why the answer is not known (not absolute, permission denied);
	// empty when the path simply does not exist.
	Err string `json:"err,omitempty"`
}

// Has reports whether a hello lists feature f.
func (h *Header) Has(f string) bool { return slices.Contains(h.Features, f) }

// SessionInfo describes one pty session.
type SessionInfo struct {
	ID      string   `json:"id"`
	PID     int      `json:"pid"`
	Argv    []string `json:"argv"`
	Cwd     string   `json:"cwd"`
	Alive   bool     `json:"alive"`
	Created int64    `json:"created"` // unix ms
	// Set once the process has ended.
	ExitCode   *int   `json:"exitCode,omitempty"`
	ExitSignal string `json:"exitSignal,omitempty"`
	Ended      int64  `json:"ended,omitempty"` // unix ms
	// Foreground is the command name of the terminal's foreground process
	// group when it is not the session's own first process.
	Foreground string `json:"fg,omitempty"`
	Cols       uint16 `json:"cols,omitempty"`
	Rows       uint16 `json:"rows,omitempty"`
}

// Frame is one decoded frame.
type Frame struct {
	Header  Header
	Payload []byte
}

// ErrFrameTooLarge reports a length prefix over the limits.
var ErrFrameTooLarge = errors.New("frame too large")

// WriteFrame encodes one frame to w in a single Write call, so concurrent
// writers serialised by a mutex never interleave partial frames.
func WriteFrame(w io.Writer, h *Header, payload []byte) error {
	hb, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("encode header: %w", err)
	}
	if len(hb) > MaxHeader || len(payload) > MaxPayload {
		return fmt.Errorf("write %s frame (header %d, payload %d bytes): %w", h.Type, len(hb), len(payload), ErrFrameTooLarge)
	}
	buf := make([]byte, 8+len(hb)+len(payload))
	binary.BigEndian.PutUint32(buf[0:4], uint32(len(hb)))
	binary.BigEndian.PutUint32(buf[4:8], uint32(len(payload)))
	copy(buf[8:], hb)
	copy(buf[8+len(hb):], payload)
	_, err = w.Write(buf)
	return err
}

// ReadFrame decodes one frame from r. It never allocates more than the
// limits allow, whatever the peer sends.
func ReadFrame(r io.Reader) (*Frame, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, err
	}
	hl := binary.BigEndian.Uint32(pre[0:4])
	pl := binary.BigEndian.Uint32(pre[4:8])
	if hl > MaxHeader || pl > MaxPayload+binOverhead || (hl > 0 && pl > MaxPayload) {
		return nil, fmt.Errorf("read frame (header %d, payload %d bytes): %w", hl, pl, ErrFrameTooLarge)
	}
	if hl == 0 {
		return readBinary(r, pl)
	}
	buf := make([]byte, int(hl)+int(pl))
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	f := &Frame{}
	if err := json.Unmarshal(buf[:hl], &f.Header); err != nil {
		return nil, fmt.Errorf("decode header: %w", err)
	}
	if f.Header.Type == "" {
		return nil, errors.New("decode header: missing frame type")
	}
	if pl > 0 {
		f.Payload = buf[hl:]
	}
	return f, nil
}

// binOverhead is the most a binary frame's body holds besides its payload.
const binOverhead = 2 + 255 + 8

func readBinary(r io.Reader, n uint32) (*Frame, error) {
	if n < 2 {
		return nil, fmt.Errorf("read binary frame (%d bytes): too short", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	kind, idl := buf[0], int(buf[1])
	if idl == 0 || 2+idl > len(buf) {
		return nil, fmt.Errorf("read binary frame: session id of %d bytes in a %d-byte frame", idl, n)
	}
	f := &Frame{}
	f.Header.Session = string(buf[2 : 2+idl])
	rest := buf[2+idl:]
	switch kind {
	case binOutput:
		if len(rest) > MaxPayload {
			return nil, fmt.Errorf("read output frame (payload %d bytes): %w", len(rest), ErrFrameTooLarge)
		}
		f.Header.Type = TOutput
		if len(rest) > 0 {
			f.Payload = rest
		}
	case binAck:
		if len(rest) != 8 && len(rest) != 16 && len(rest) != 24 {
			return nil, fmt.Errorf("read ack frame: %d bytes of count, want 8, 16 or 24", len(rest))
		}
		f.Header.Type = TAck
		f.Header.Bytes = int64(binary.BigEndian.Uint64(rest))
		if len(rest) >= 16 {
			f.Header.Rate = int64(binary.BigEndian.Uint64(rest[8:]))
		}
		if len(rest) == 24 {
			q := int64(binary.BigEndian.Uint64(rest[16:]))
			f.Header.Queued = &q
		}
	default:
		return nil, fmt.Errorf("read binary frame: unknown kind %d", kind)
	}
	return f, nil
}

func binHeader(kind byte, session string, rest int) ([]byte, error) {
	if len(session) == 0 || len(session) > 255 {
		return nil, fmt.Errorf("binary frame: session id of %d bytes (1-255)", len(session))
	}
	if rest > MaxPayload {
		return nil, fmt.Errorf("write binary frame (payload %d bytes): %w", rest, ErrFrameTooLarge)
	}
	body := 2 + len(session) + rest
	h := make([]byte, 10+len(session), 10+len(session)+8)
	binary.BigEndian.PutUint32(h[0:4], 0)
	binary.BigEndian.PutUint32(h[4:8], uint32(body))
	h[8], h[9] = kind, byte(len(session))
	copy(h[10:], session)
	return h, nil
}

// WriteOutput writes one output frame in the binary form (FeatureBinary).
// Header and payload go out in one writev on a net.Conn, so the payload is
// not copied into a frame buffer.
func WriteOutput(w io.Writer, session string, payload []byte) error {
	h, err := binHeader(binOutput, session, len(payload))
	if err != nil {
		return err
	}
	if len(payload) == 0 {
		_, err = w.Write(h)
		return err
	}
	if vw, ok := w.(VectorWriter); ok {
		_, err = vw.WriteVectored(h, payload)
		return err
	}
	if _, ok := w.(net.Conn); ok {
		bufs := net.Buffers{h, payload}
		_, err = bufs.WriteTo(w)
		return err
	}
	_, err = w.Write(append(h, payload...))
	return err
}

// VectorWriter is a writer that writes several buffers in one call (writev):
// a connection that is not one of package net's (the pipes of an ssh
// channel handed to the daemon), so an output frame's header and payload
// still go out in one write.
type VectorWriter interface {
	WriteVectored(bufs ...[]byte) (int64, error)
}

// WriteAck writes one ack frame in the binary form (FeatureBinary).
func WriteAck(w io.Writer, session string, n int64) error {
	return WriteAckRate(w, session, n, 0)
}

// WriteAckRate writes one ack frame in the binary form with the reader's
// rate (FeatureAckRate; rate 0 writes the 8-byte form).
func WriteAckRate(w io.Writer, session string, n, rate int64) error {
	return WriteAckQueue(w, session, n, rate, -1)
}

// WriteAckQueue writes one ack frame in the binary form with the reader's
// rate and the bytes it has queued (FeatureAckQueue: 24 bytes); queued < 0
// or rate 0 writes the shorter forms.
func WriteAckQueue(w io.Writer, session string, n, rate, queued int64) error {
	size := 8
	if rate > 0 {
		size = 16
		if queued >= 0 {
			size = 24
		}
	}
	h, err := binHeader(binAck, session, size)
	if err != nil {
		return err
	}
	h = binary.BigEndian.AppendUint64(h, uint64(n))
	if size >= 16 {
		h = binary.BigEndian.AppendUint64(h, uint64(rate))
	}
	if size == 24 {
		h = binary.BigEndian.AppendUint64(h, uint64(queued))
	}
	_, err = w.Write(h)
	return err
}

// VersionMismatch is the message both sides use when versions differ.
func VersionMismatch(daemon, client int) string {
	return fmt.Sprintf("pty daemon speaks protocol v%d but this Reprise speaks v%d; quit Reprise and stop the old daemon (its terminals will be restored from scrollback)", daemon, client)
}
