// Package web serves the frontend and its WebSocket (docs/wire.md) on a
// loopback port: the same server in browser mode (`reprise serve`) and in
// the desktop app, where the Wails page connects to it for pty streams.
package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/reprise-dev/reprise/backend/atomicfile"
	"github.com/reprise-dev/reprise/backend/connlimit"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/safefile"
)

// Server is the HTTP/WebSocket front of one host.
type Server struct {
	host    *host.Host
	assets  fs.FS // the built frontend; nil serves a short notice
	token   string
	log     *slog.Logger
	ln      *connlimit.Listener
	srv     *http.Server
	origins []string        // extra allowed WebSocket origins (the Wails page)
	hosts   map[string]bool // Host header values this server answers to
	limits  Limits

	statsMu sync.Mutex // guards stats
	stats   queueStats
}

// Limits bound what one client can hold. Zero fields take the defaults
// (DefaultLimits); tests shorten them.
type Limits struct {
	MaxConns     int           // open connections at once, pages and requests together
	IdleTimeout  time.Duration // a keep-alive connection between requests
	PingInterval time.Duration // how often a WebSocket is pinged
	PingTimeout  time.Duration // how long its pong may take before it is closed
}

// DefaultLimits: a page holds one WebSocket and a few asset requests; a
// browser opens at most six connections per host while loading.
var DefaultLimits = Limits{MaxConns: 128, IdleTimeout: 30 * time.Second, PingInterval: 15 * time.Second, PingTimeout: 10 * time.Second}

// Options configure a Server.
type Options struct {
	Listen       string // host:port; must be a loopback address
	Assets       fs.FS
	Logger       *slog.Logger
	ExtraOrigins []string
	Token        string // empty: a fresh random token (per launch)
	Limits       Limits
}

// NewToken returns a random per-launch token.
func NewToken() string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// LoadOrCreateToken returns the token stored at path (a pinned token:
// `reprise serve --token-file`), creating the file (0600) with a fresh
// token when it is missing. A file that holds something else is an error,
// not silently replaced: the user put it there.
func LoadOrCreateToken(path string) (string, error) {
	b, err := safefile.ReadFile(path, 4<<10) // a FIFO or a huge file is refused, not waited on
	if err == nil {
		t := strings.TrimSpace(string(b))
		if !validToken(t) {
			return "", fmt.Errorf("token file %s: want 32 to 128 characters of [A-Za-z0-9_-] (or delete it to get a fresh token)", path)
		}
		return t, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read token file: %w", err)
	}
	t := NewToken()
	if err := atomicfile.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("save web token: %w", err)
	}
	return t, nil
}

func validToken(t string) bool {
	if len(t) < 32 || len(t) > 128 {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Listen binds the loopback port. Anything other than a loopback address
// is refused: the token guards the socket, but the port must not face a
// network.
func Listen(h *host.Host, o Options) (*Server, error) {
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	hostPart, _, err := net.SplitHostPort(o.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", o.Listen, err)
	}
	if ip := net.ParseIP(hostPart); hostPart != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("listen address %q is not a loopback address; Reprise only serves 127.0.0.1 or ::1", o.Listen)
	}
	if o.Token == "" {
		o.Token = NewToken()
	}
	if !validToken(o.Token) {
		return nil, errors.New("web token: want 32 to 128 characters of [A-Za-z0-9_-]")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	lim := o.Limits
	d := DefaultLimits
	if lim.MaxConns <= 0 {
		lim.MaxConns = d.MaxConns
	}
	if lim.IdleTimeout <= 0 {
		lim.IdleTimeout = d.IdleTimeout
	}
	if lim.PingInterval <= 0 {
		lim.PingInterval = d.PingInterval
	}
	if lim.PingTimeout <= 0 {
		lim.PingTimeout = d.PingTimeout
	}
	raw, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", o.Listen, err)
	}
	log := o.Logger.With("component", "web")
	s := &Server{host: h, assets: o.Assets, token: o.Token, log: log, ln: connlimit.Wrap(raw, lim.MaxConns, log), origins: o.ExtraOrigins, limits: lim}
	s.hosts = ownHosts(raw.Addr().(*net.TCPAddr).Port)
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", s.handleWS)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("/", s.handleAsset)
	s.srv = &http.Server{
		Handler: s.guard(mux),
		// No client holds a descriptor by being slow or idle: the header
		// within 5 s, the whole request within 15 s, the response within
		// 30 s, and an idle keep-alive connection goes after IdleTimeout.
		// A WebSocket is hijacked, which clears these; pings keep it honest.
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	go func() {
		if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("http server stopped", "err", err)
		}
	}()
	return s, nil
}

// ownHosts are the Host header values of the server's own addresses: a
// request naming anything else reached the port through a name that
// resolves to loopback (DNS rebinding) or a proxy, and is refused.
func ownHosts(port int) map[string]bool {
	m := map[string]bool{}
	for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
		m[fmt.Sprintf("%s:%d", name, port)] = true
		if port == 80 {
			m[name] = true
		}
	}
	return m
}

// Addr is the bound address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Token is the launch's token.
func (s *Server) Token() string { return s.token }

// URL is the page address. The token is in the fragment: the browser keeps
// it to itself (never in a request line, a log or a Referer), the page
// reads it, keeps it in its tab (sessionStorage) and removes it from the
// address bar.
func (s *Server) URL() string { return "http://" + s.Addr() + "/#token=" + s.token }

// WSURL is the WebSocket address without the token.
func (s *Server) WSURL() string { return "ws://" + s.Addr() + "/ws" }

// Close stops serving.
func (s *Server) Close(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// guard sets the headers every response carries and refuses foreign Host
// names before any handler runs.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "frame-ancestors 'none'")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		if !s.hosts[strings.ToLower(r.Host)] {
			s.log.Warn("request refused: foreign Host header", "host", r.Host, "remote", r.RemoteAddr)
			refuse(w, http.StatusForbidden, "403 forbidden: this server only answers to its loopback address")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers with code and closes the connection, so a refused client
// keeps no descriptor on a keep-alive connection.
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Connection", "close")
	http.Error(w, msg, code)
}

// authorized checks the token: `token` in the query (the WebSocket URL) or
// `Authorization: Bearer`. No cookie: cookies are scoped by host, not port,
// so a browser would hand one to every other server on 127.0.0.1.
func (s *Server) authorized(r *http.Request) bool {
	t := r.URL.Query().Get("token")
	if a := r.Header.Get("Authorization"); t == "" && strings.HasPrefix(a, "Bearer ") {
		t = strings.TrimPrefix(a, "Bearer ")
	}
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// handleAsset serves the frontend without a token: it is the same public
// bundle that ships in the binary and holds no state; everything the page
// can see or do goes over the WebSocket, which needs the token.
func (s *Server) handleAsset(w http.ResponseWriter, r *http.Request) {
	if s.assets == nil {
		http.Error(w, "this build has no frontend (run `make build`)", http.StatusNotFound)
		return
	}
	http.FileServerFS(s.assets).ServeHTTP(w, r)
}

// originAllowed accepts the server's own origin and the desktop page's.
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true // not a browser (CLI tools, tests); the token still applies
	}
	for _, o := range s.origins {
		if origin == o {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
}

func (s *Server) handleWS(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		refuse(w, http.StatusUnauthorized, "401 unauthorized: open the address printed by `reprise serve` (tokens change every launch)")
		return
	}
	if !s.originAllowed(r) {
		s.log.Warn("websocket refused: foreign origin", "origin", r.Header.Get("Origin"))
		refuse(w, http.StatusForbidden, "403 forbidden origin")
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true}) // origin checked above
	if err != nil {
		s.log.Warn("websocket accept", "err", err)
		return
	}
	// Whatever ends the session (close handshake, FIN, reset, protocol
	// error, missed pongs), the descriptor goes with it.
	defer c.CloseNow()
	c.SetReadLimit(4 << 20)
	sess := newSession(s, c)
	sess.run(r.Context())
}
