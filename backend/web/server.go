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
	"os"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/reprise-dev/reprise/backend/atomicfile"
	"github.com/reprise-dev/reprise/backend/host"
)

const cookieName = "reprise_token"

// Server is the HTTP/WebSocket front of one host.
type Server struct {
	host    *host.Host
	assets  fs.FS // the built frontend; nil serves a short notice
	token   string
	log     *slog.Logger
	ln      net.Listener
	srv     *http.Server
	origins []string // extra allowed WebSocket origins (the Wails page)
}

// Options configure a Server.
type Options struct {
	Listen       string // host:port; must be a loopback address
	Assets       fs.FS
	Logger       *slog.Logger
	ExtraOrigins []string
	Token        string // empty: a fresh random token
}

// NewToken returns a random per-launch token.
func NewToken() string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b[:])
}

// LoadOrCreateToken returns the token stored at path, creating it (0600)
// when missing or malformed. A stable token lets an open browser tab
// reconnect after the host restarts; it is as private as the home's sockets.
func LoadOrCreateToken(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		if t := strings.TrimSpace(string(b)); len(t) == 48 {
			if _, err := hex.DecodeString(t); err == nil {
				return t, nil
			}
		}
	}
	t := NewToken()
	if err := atomicfile.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("save web token: %w", err)
	}
	return t, nil
}

// Listen binds the loopback port. Anything other than a loopback address
// is refused: the token guards the pages, but the port must not face a
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
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", o.Listen, err)
	}
	s := &Server{host: h, assets: o.Assets, token: o.Token, log: o.Logger.With("component", "web"), ln: ln, origins: o.ExtraOrigins}
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", s.handleWS)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("/", s.handleAsset)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("http server stopped", "err", err)
		}
	}()
	return s, nil
}

// Addr is the bound address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Token is the per-launch token.
func (s *Server) Token() string { return s.token }

// URL is the page address with the token.
func (s *Server) URL() string { return "http://" + s.Addr() + "/?token=" + s.token }

// WSURL is the WebSocket address without the token.
func (s *Server) WSURL() string { return "ws://" + s.Addr() + "/ws" }

// Close stops serving.
func (s *Server) Close(ctx context.Context) error { return s.srv.Shutdown(ctx) }

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if t := r.URL.Query().Get("token"); t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1 {
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		return true
	}
	if c, err := r.Cookie(cookieName); err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.token)) == 1 {
		return true
	}
	return false
}

func (s *Server) handleAsset(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		http.Error(w, "401 unauthorized: open the address printed by `reprise serve` (it carries the token)", http.StatusUnauthorized)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
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
	if !s.authorized(w, r) {
		http.Error(w, "401 unauthorized", http.StatusUnauthorized)
		return
	}
	if !s.originAllowed(r) {
		s.log.Warn("websocket refused: foreign origin", "origin", r.Header.Get("Origin"))
		http.Error(w, "403 forbidden origin", http.StatusForbidden)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true}) // origin checked above
	if err != nil {
		s.log.Warn("websocket accept", "err", err)
		return
	}
	c.SetReadLimit(4 << 20)
	sess := newSession(s, c)
	sess.run(r.Context())
}
