// Package localapi serves the host's actions over its Unix socket
// ($REPRISE_HOME/run/host.sock, mode 0600) as versioned JSON: the CLI, the
// Go SDK and the MCP server are its clients, and hooks poke it so their
// events are applied at once.
package localapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"

	"github.com/reprise-dev/reprise/backend/api"
	"github.com/reprise-dev/reprise/backend/connlimit"
	"github.com/reprise-dev/reprise/backend/host"
	"github.com/reprise-dev/reprise/backend/safefile"
	"github.com/reprise-dev/reprise/backend/store"
)

// DebugEnv set to 1 in the host's environment adds the debug routes
// (GET /v1/debug/streams), for benchmarks.
const DebugEnv = "REPRISE_DEBUG_API"

// Server is the local API of one host.
type Server struct {
	h   *host.Host
	ln  *connlimit.Listener
	srv *http.Server
	log *slog.Logger
}

// Only the user can reach the socket (0600), but a stuck or buggy client
// (an MCP server, a hook, a script) must still not pin descriptors the host
// needs: connections are capped, and a request must arrive promptly.
// Handlers may run long (starting an agent), so there is no write timeout.
var (
	maxConns    = 256
	idleTimeout = 60 * time.Second
)

// Listen serves the API on sock.
func Listen(h *host.Host, sock string, logger *slog.Logger) (*Server, error) {
	// The host lock is held: any socket here is stale.
	if err := safefile.ClearSocket(sock); err != nil {
		return nil, fmt.Errorf("local api: %w", err)
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", sock)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("local api: listen on %s: %w", sock, err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("local api: %w", err)
	}
	// Close removes the path itself; unlinking again when the listener
	// closes later could delete a newer server's socket.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	log := logger.With("component", "localapi")
	s := &Server{h: h, ln: connlimit.Wrap(ln, maxConns, log), log: log}
	s.srv = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
	go func() {
		if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("local api stopped", "err", err)
		}
	}()
	return s, nil
}

// Close stops serving and removes the socket.
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	_ = os.Remove(s.ln.Addr().String())
	return err
}

// Error is the body of every failed call.
type Error struct {
	Error string `json:"error"`
}

type handler func(r *http.Request) (any, error)

func (s *Server) wrap(fn handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		res, err := fn(r)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			code := http.StatusInternalServerError
			var be badRequest
			var tl tooLarge
			switch {
			case errors.As(err, &be):
				code = http.StatusBadRequest
			case errors.As(err, &tl):
				code = http.StatusRequestEntityTooLarge
			case errors.Is(err, store.ErrNotFound):
				code = http.StatusNotFound
			case errors.Is(err, store.ErrConflict):
				code = http.StatusConflict
			default:
				code = http.StatusUnprocessableEntity
			}
			w.WriteHeader(code)
			json.NewEncoder(w).Encode(Error{Error: err.Error()})
			return
		}
		if res == nil {
			res = struct{}{}
		}
		json.NewEncoder(w).Encode(res)
	}
}

type badRequest struct{ error }

// tooLarge is a request body over MaxBody.
type tooLarge struct{ error }

// MaxBody bounds a request body (docs/security.md).
const MaxBody = 1 << 20

func decode[T any](r *http.Request) (T, error) {
	var v T
	// One byte past the bound tells a body over it from one that fits: cut
	// at the bound, a valid body was answered "unexpected end of JSON
	// input".
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		return v, badRequest{fmt.Errorf("read request: %w", err)}
	}
	if len(body) > MaxBody {
		return v, tooLarge{fmt.Errorf("request body is over the %d-byte limit", MaxBody)}
	}
	if len(body) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return v, badRequest{fmt.Errorf("bad request body: %w", err)}
	}
	return v, nil
}

// ResumeRequest names the terminal whose interrupted agent to resume.
type ResumeRequest struct {
	TerminalID string `json:"terminalId"`
}

// ResumeArgsRequest sets an agent's resume args.
type ResumeArgsRequest struct {
	ResumeArgs []string `json:"resumeArgs"`
}

// SettingValue is a setting's value.
type SettingValue struct {
	Value string `json:"value"`
}

func (s *Server) routes() http.Handler {
	h := s.h
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/version", s.wrap(func(r *http.Request) (any, error) {
		return map[string]any{"api": 1, "wire": api.Version, "pid": os.Getpid()}, nil
	}))
	mux.HandleFunc("GET /v1/agents", s.wrap(func(r *http.Request) (any, error) { return h.Agents(r.Context()) }))
	mux.HandleFunc("GET /v1/agents/{id}", s.wrap(func(r *http.Request) (any, error) { return h.Agent(r.Context(), r.PathValue("id")) }))
	mux.HandleFunc("PUT /v1/agents/{id}", s.wrap(func(r *http.Request) (any, error) {
		a, err := decode[api.Agent](r)
		if err != nil {
			return nil, err
		}
		a.ID = r.PathValue("id")
		return h.SaveAgent(r.Context(), a)
	}))
	mux.HandleFunc("PUT /v1/agents/{id}/resume-args", s.wrap(func(r *http.Request) (any, error) {
		req, err := decode[ResumeArgsRequest](r)
		if err != nil {
			return nil, err
		}
		return h.SetResumeArgs(r.Context(), r.PathValue("id"), req.ResumeArgs)
	}))
	mux.HandleFunc("POST /v1/agents/{id}/reset", s.wrap(func(r *http.Request) (any, error) { return h.ResetAgent(r.Context(), r.PathValue("id")) }))
	mux.HandleFunc("DELETE /v1/agents/{id}", s.wrap(func(r *http.Request) (any, error) { return nil, h.DeleteAgent(r.Context(), r.PathValue("id")) }))
	mux.HandleFunc("POST /v1/agents/{id}/hooks", s.wrap(func(r *http.Request) (any, error) { return h.SetHooks(r.Context(), r.PathValue("id"), true) }))
	mux.HandleFunc("DELETE /v1/agents/{id}/hooks", s.wrap(func(r *http.Request) (any, error) { return h.SetHooks(r.Context(), r.PathValue("id"), false) }))
	mux.HandleFunc("POST /v1/agents/run", s.wrap(func(r *http.Request) (any, error) {
		req, err := decode[api.CreateAgentRequest](r)
		if err != nil {
			return nil, err
		}
		return h.CreateAgent(r.Context(), req)
	}))
	mux.HandleFunc("GET /v1/terminals", s.wrap(func(r *http.Request) (any, error) { return h.Terminals(r.Context()) }))
	mux.HandleFunc("POST /v1/terminals/{id}/close", s.wrap(func(r *http.Request) (any, error) {
		return nil, h.CloseTerminal(r.Context(), r.PathValue("id"))
	}))
	mux.HandleFunc("GET /v1/bindings/{terminalId}", s.wrap(func(r *http.Request) (any, error) {
		return h.Binding(r.Context(), r.PathValue("terminalId"))
	}))
	mux.HandleFunc("GET /v1/agent-states", s.wrap(func(r *http.Request) (any, error) { return h.AgentStates(r.Context()) }))
	mux.HandleFunc("GET /v1/candidates", s.wrap(func(r *http.Request) (any, error) { return h.ResumeCandidates(r.Context()) }))
	mux.HandleFunc("GET /v1/sessions", s.wrap(func(r *http.Request) (any, error) {
		q := r.URL.Query()
		return h.Sessions(r.Context(), q.Get("all") == "1" || q.Get("all") == "true", q.Get("q"))
	}))
	mux.HandleFunc("POST /v1/resume", s.wrap(func(r *http.Request) (any, error) {
		req, err := decode[ResumeRequest](r)
		if err != nil {
			return nil, err
		}
		if req.TerminalID == "" {
			return nil, badRequest{errors.New("terminalId is required")}
		}
		return h.Resume(r.Context(), req.TerminalID)
	}))
	mux.HandleFunc("GET /v1/restore", s.wrap(func(r *http.Request) (any, error) { return h.LastRestore(), nil }))
	mux.HandleFunc("DELETE /v1/sessions/{agent}/{session}", s.wrap(func(r *http.Request) (any, error) {
		return nil, h.ForgetSession(r.Context(), r.PathValue("agent"), r.PathValue("session"))
	}))
	// ssh's askpass helper (a reprise started by ssh) asks here and waits
	// for the UI's answer (remote/askpass.go). Only this user reaches the
	// socket (0600).
	mux.Handle("POST /v1/askpass", h.Askpass())
	mux.HandleFunc("POST /v1/hooks/notify", s.wrap(func(r *http.Request) (any, error) {
		h.NotifyInbox()
		return nil, nil
	}))
	mux.HandleFunc("GET /v1/settings/{key}", s.wrap(func(r *http.Request) (any, error) {
		v, err := h.Setting(r.Context(), r.PathValue("key"))
		return SettingValue{Value: v}, err
	}))
	mux.HandleFunc("PUT /v1/settings/{key}", s.wrap(func(r *http.Request) (any, error) {
		req, err := decode[SettingValue](r)
		if err != nil {
			return nil, err
		}
		return nil, h.SetSetting(r.Context(), r.PathValue("key"), req.Value)
	}))
	if os.Getenv(DebugEnv) == "1" {
		mux.HandleFunc("GET /v1/debug/streams", s.wrap(func(r *http.Request) (any, error) { return h.StreamStats(), nil }))
		mux.HandleFunc("GET /v1/debug/marks", s.wrap(func(r *http.Request) (any, error) { return h.StartMarks(), nil }))
	}
	return mux
}
