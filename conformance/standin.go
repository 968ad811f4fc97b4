// Package conformance runs Reprise against the real coding-agent CLIs
// (Claude Code, Codex, Gemini CLI) installed from npm at pinned versions,
// each talking to a local stand-in for its model API, and checks what
// Reprise records about them: session ids, end reasons, resume candidates,
// and the screen after a resume.
//
// The tests only run with REPRISE_CONFORMANCE=1 (see run.sh, which installs
// the CLIs first). This file holds the model API stand-ins, which are
// plain HTTP servers on 127.0.0.1 speaking just enough of each vendor's
// streaming format for a turn to complete with a reply.
package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// ReplyMarker starts every reply a stand-in gives, so a screen can show
// that the model's answer (not just the user's prompt) was kept.
const ReplyMarker = "STANDIN-ACK"

// CodewordPrefixes are the words a test's codeword starts with, e.g.
// PAPAYA-4711. The stand-ins look only for these, so text a CLI adds to the
// prompt (dates, standards like ISO-8601) is never taken for one.
var CodewordPrefixes = []string{"PAPAYA", "KIWI", "PEAR", "PLUM", "CHERRY", "LIME", "FIG", "MANGO", "QUINCE", "FOLLOW", "FLUSH", "ERR", ShellPrefix}

// ShellPrefix: a turn whose prompt carries a SHELL-<n> codeword is
// answered with a call of the agent's shell tool running ShellCommand (a
// command every CLI asks the user to approve), and once the tool's result
// comes back with the usual reply. That is how the conformance suite makes
// a real CLI open a permission prompt.
const ShellPrefix = "SHELL"

// ShellCommand is the command the stand-in asks the agent to run for a
// SHELL codeword: it leaves a file named after the codeword in the agent's
// cwd, so a test can tell the approved command really ran.
func ShellCommand(cw string) string { return "touch " + ShellFile(cw) }

// ShellFile is the file ShellCommand creates.
func ShellFile(cw string) string { return strings.ToLower(cw) + ".txt" }

// afterTool is the reply once the tool's result came back: the usual
// reply to the SHELL codeword of the conversation.
func afterTool(history string) string {
	cw := codewordRE.FindAllString(history, -1)
	for i := len(cw) - 1; i >= 0; i-- {
		if strings.HasPrefix(cw[i], ShellPrefix+"-") {
			return replyTo(cw[i])
		}
	}
	return replyTo(history)
}

// shellCodeword is the SHELL codeword of a prompt, "" when none.
func shellCodeword(prompt string) string {
	for _, cw := range codewordRE.FindAllString(prompt, -1) {
		if strings.HasPrefix(cw, ShellPrefix+"-") {
			return cw
		}
	}
	return ""
}

var codewordRE = regexp.MustCompile(`\b(` + strings.Join(CodewordPrefixes, "|") + `)-[0-9]{2,}\b`)

// Request is one call a CLI made to a stand-in.
type Request struct {
	At     time.Time `json:"at"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Prompt is the text of the last user message, when the call was a
	// model turn.
	Prompt string `json:"prompt,omitempty"`
	// History is the text of every message the call carried: a resumed
	// conversation sends its old turns again.
	History string `json:"history,omitempty"`
	// Turn is true for a call that asked the model for a conversational
	// reply (as opposed to token counting, classifiers, titles …).
	Turn bool `json:"turn,omitempty"`
	// Reply is what the stand-in answered to a turn.
	Reply  string `json:"reply,omitempty"`
	Model  string `json:"model,omitempty"`
	Stream bool   `json:"stream,omitempty"`
	Tools  int    `json:"tools,omitempty"`
	// ToolCall is the command the stand-in asked the agent to run (a SHELL
	// codeword), with the tool's name.
	ToolCall string `json:"toolCall,omitempty"`
	// ToolNames are the tools a turn offered (OpenAI only: which shell tool
	// Codex has).
	ToolNames []string `json:"toolNames,omitempty"`
	// ToolResult: the call carried the result of the stand-in's tool call.
	ToolResult bool `json:"toolResult,omitempty"`
}

// StandIn is a local model API.
type StandIn struct {
	Kind string // "anthropic", "openai", "gemini"
	URL  string // base URL, e.g. http://127.0.0.1:PORT

	ln  net.Listener
	srv *http.Server

	mu   sync.Mutex
	reqs []Request
	n    int
	// FailTurns, when set, answers every turn with this HTTP status (an
	// API error the CLI shows) instead of a reply.
	FailTurns int
}

// StartStandIn serves a stand-in of the given kind on 127.0.0.1.
func StartStandIn(kind string) (*StandIn, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &StandIn{Kind: kind, ln: ln, URL: "http://" + ln.Addr().String()}
	var h http.HandlerFunc
	switch kind {
	case "anthropic":
		h = s.anthropic
	case "openai":
		h = s.openai
	case "gemini":
		h = s.gemini
	default:
		ln.Close()
		return nil, fmt.Errorf("unknown stand-in kind %q", kind)
	}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// ClosedPortURL is the base URL of a port nothing listens on: every call
// is refused at once.
func ClosedPortURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr, nil
}

// Close stops the stand-in.
func (s *StandIn) Close() { s.srv.Close() }

// Requests returns every call so far.
func (s *StandIn) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Turns returns the calls that were conversational turns.
func (s *StandIn) Turns() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Turn {
			out = append(out, r)
		}
	}
	return out
}

// SawPrompt reports whether a turn's prompt contained text.
func (s *StandIn) SawPrompt(text string) bool {
	for _, r := range s.Turns() {
		if strings.Contains(r.Prompt, text) {
			return true
		}
	}
	return false
}

func (s *StandIn) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, r)
}

func (s *StandIn) failTurns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.FailTurns
}

// SetFailTurns makes every later turn fail with the HTTP status (0: reply).
func (s *StandIn) SetFailTurns(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.FailTurns = code
}

func (s *StandIn) next() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return s.n
}

// replyTo is the stand-in model's answer: the marker and the codeword it
// was told, so a resumed conversation shows both sides.
func replyTo(prompt string) string {
	if cw := codewordRE.FindAllString(prompt, -1); len(cw) > 0 {
		return ReplyMarker + ": I will remember " + cw[len(cw)-1] + "."
	}
	return ReplyMarker + ": hello from the stand-in model."
}

func head(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func readJSON(r *http.Request) (map[string]any, []byte) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var m map[string]any
	_ = json.Unmarshal(body, &m)
	return m, body
}

// textOf gathers the text in a message's content: a string, or blocks with
// "text" (Anthropic text, OpenAI input_text) or Gemini parts.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			if t := textOf(e); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		if t, ok := x["text"].(string); ok {
			return t
		}
		for _, k := range []string{"content", "parts"} {
			if c, ok := x[k]; ok {
				return textOf(c)
			}
		}
	}
	return ""
}

// lastUser is the text of the last message with the given role (Anthropic
// and OpenAI "user"; Gemini "user" contents).
func lastUser(msgs any) string {
	list, _ := msgs.([]any)
	for i := len(list) - 1; i >= 0; i-- {
		m, _ := list[i].(map[string]any)
		if m == nil {
			continue
		}
		role, _ := m["role"].(string)
		typ, _ := m["type"].(string)
		if role == "user" && (typ == "" || typ == "message") {
			if t := textOf(m); t != "" {
				return t
			}
		}
	}
	return ""
}

func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// anthropic answers the Messages API: POST /v1/messages, streaming (SSE:
// message_start, content_block_start/delta/stop, message_delta,
// message_stop) or not; count_tokens; anything else 404.
func (s *StandIn) anthropic(w http.ResponseWriter, r *http.Request) {
	m, _ := readJSON(r)
	rec := Request{At: time.Now(), Method: r.Method, Path: r.URL.Path}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens"):
		s.record(rec)
		writeJSON(w, 200, map[string]any{"input_tokens": 42})
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages"):
	default:
		s.record(rec)
		writeJSON(w, 404, map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "not here"}})
		return
	}
	rec.Prompt = lastUser(m["messages"])
	rec.History = textOf(m["messages"])
	model, _ := m["model"].(string)
	stream, _ := m["stream"].(bool)
	tools, _ := m["tools"].([]any)
	rec.Model, rec.Stream, rec.Tools = model, stream, len(tools)
	// Claude Code's side calls (session titles, topic checks, quota
	// probes) offer no tools; a conversational turn does.
	rec.Turn = len(tools) > 0
	reply := replyTo(rec.Prompt)
	if !rec.Turn {
		reply = "Stand-in"
	}
	rec.ToolResult = anthropicToolResult(m["messages"])
	if rec.ToolResult {
		reply = afterTool(rec.History)
	}
	var call map[string]any // a tool_use block
	if cw := shellCodeword(rec.Prompt); rec.Turn && cw != "" && !rec.ToolResult && hasTool(tools, "Bash") {
		cmd := ShellCommand(cw)
		rec.ToolCall = "Bash: " + cmd
		call = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_standin_%d", s.next()), "name": "Bash",
			"input": map[string]any{"command": cmd, "description": "Create the file for " + cw}}
	}
	rec.Reply = reply
	s.record(rec)
	id := fmt.Sprintf("msg_standin_%d", s.next())
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !stream {
		content, stop := []any{map[string]any{"type": "text", "text": reply}}, "end_turn"
		if call != nil {
			content, stop = []any{call}, "tool_use"
		}
		writeJSON(w, 200, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": model,
			"content":     content,
			"stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	stop := "end_turn"
	if call != nil {
		input, _ := json.Marshal(call["input"])
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{
			"type": "tool_use", "id": call["id"], "name": call["name"], "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		stop = "tool_use"
	} else {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": reply}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// openai answers the Responses API: POST …/responses, streaming
// (response.created, output_item.added, output_text.delta,
// output_item.done, response.completed); GET …/models an empty list.
func (s *StandIn) openai(w http.ResponseWriter, r *http.Request) {
	m, _ := readJSON(r)
	rec := Request{At: time.Now(), Method: r.Method, Path: r.URL.Path}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses"):
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		s.record(rec)
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
		return
	default:
		s.record(rec)
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "not here", "type": "invalid_request_error"}})
		return
	}
	rec.Prompt = lastUser(m["input"])
	rec.History = textOf(m["input"])
	rec.Model, _ = m["model"].(string)
	rec.Stream, _ = m["stream"].(bool)
	// Codex asks for a title for the thread on the side.
	rec.Turn = !strings.Contains(strings.ToLower(head(rec.Prompt, 200)), "title")
	reply := replyTo(rec.Prompt)
	if !rec.Turn {
		reply = "Stand-in title"
	}
	rec.ToolResult = openaiToolResult(m["input"])
	if rec.ToolResult {
		reply = afterTool(rec.History)
	}
	tools := openaiTools(m)
	for _, t := range tools {
		n, _ := t["name"].(string)
		typ, _ := t["type"].(string)
		rec.ToolNames = append(rec.ToolNames, typ+":"+n)
	}
	var call map[string]any // a function_call or custom_tool_call item
	if cw := shellCodeword(rec.Prompt); rec.Turn && cw != "" && !rec.ToolResult {
		call = codexShellCall(tools, ShellCommand(cw))
		if call != nil {
			rec.ToolCall = fmt.Sprintf("%s: %s%s", call["name"], call["arguments"], call["input"])
		}
	}
	rec.Reply = reply
	s.record(rec)
	n := s.next()
	respID, itemID := fmt.Sprintf("resp_standin_%d", n), fmt.Sprintf("msg_standin_%d", n)
	model, _ := m["model"].(string)
	resp := func(status string, output []any) map[string]any {
		out := map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(), "status": status, "model": model, "output": output}
		if status == "completed" {
			out["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
		}
		return out
	}
	item := map[string]any{"type": "message", "id": itemID, "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": reply, "annotations": []any{}}}}
	if call != nil {
		call["id"], call["call_id"], call["status"] = fmt.Sprintf("fc_standin_%d", n), fmt.Sprintf("call_standin_%d", n), "completed"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	seq := 0
	ev := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		sse(w, typ, fields)
	}
	ev("response.created", map[string]any{"response": resp("in_progress", []any{})})
	ev("response.in_progress", map[string]any{"response": resp("in_progress", []any{})})
	if call != nil {
		added := map[string]any{}
		for k, v := range call {
			added[k] = v
		}
		added["status"] = "in_progress"
		if call["type"] == "custom_tool_call" {
			added["input"] = ""
			ev("response.output_item.added", map[string]any{"output_index": 0, "item": added})
			ev("response.custom_tool_call_input.delta", map[string]any{"item_id": call["id"], "output_index": 0, "delta": call["input"]})
			ev("response.custom_tool_call_input.done", map[string]any{"item_id": call["id"], "output_index": 0, "input": call["input"]})
		} else {
			added["arguments"] = ""
			ev("response.output_item.added", map[string]any{"output_index": 0, "item": added})
			ev("response.function_call_arguments.delta", map[string]any{"item_id": call["id"], "output_index": 0, "delta": call["arguments"]})
			ev("response.function_call_arguments.done", map[string]any{"item_id": call["id"], "output_index": 0, "arguments": call["arguments"]})
		}
		ev("response.output_item.done", map[string]any{"output_index": 0, "item": call})
		ev("response.completed", map[string]any{"response": resp("completed", []any{call})})
		return
	}
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{
		"type": "message", "id": itemID, "role": "assistant", "status": "in_progress", "content": []any{}}})
	ev("response.content_part.added", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0,
		"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
	ev("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "delta": reply})
	ev("response.output_text.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0, "text": reply})
	ev("response.content_part.done", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0,
		"part": map[string]any{"type": "output_text", "text": reply, "annotations": []any{}}})
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	ev("response.completed", map[string]any{"response": resp("completed", []any{item})})
}

// gemini answers the Gemini API: …:streamGenerateContent (SSE of
// GenerateContentResponse), …:generateContent (JSON; side calls that ask
// for JSON get one object with the fields Gemini CLI's classifiers read),
// …:countTokens.
func (s *StandIn) gemini(w http.ResponseWriter, r *http.Request) {
	m, _ := readJSON(r)
	rec := Request{At: time.Now(), Method: r.Method, Path: r.URL.Path}
	path := r.URL.Path
	usage := map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
	candidate := func(text string) map[string]any {
		return map[string]any{
			"candidates": []any{map[string]any{
				"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}},
				"finishReason": "STOP", "index": 0,
			}},
			"usageMetadata": usage,
			"modelVersion":  "standin",
		}
	}
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":countTokens"):
		s.record(rec)
		writeJSON(w, 200, map[string]any{"totalTokens": 10})
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":streamGenerateContent"):
		rec.Prompt = lastUser(m["contents"])
		rec.History = textOf(m["contents"])
		rec.Turn = true
		if code := s.failTurns(); code != 0 {
			s.record(rec)
			writeJSON(w, code, map[string]any{"error": map[string]any{"code": code, "message": "stand-in refuses the turn", "status": "INVALID_ARGUMENT"}})
			return
		}
		rec.Reply = replyTo(rec.Prompt)
		rec.ToolResult = geminiToolResult(m["contents"])
		if rec.ToolResult {
			rec.Reply = afterTool(rec.History)
		}
		out := candidate(rec.Reply)
		if cw := shellCodeword(rec.Prompt); cw != "" && !rec.ToolResult && geminiHasTool(m["tools"], "run_shell_command") {
			cmd := ShellCommand(cw)
			rec.ToolCall = "run_shell_command: " + cmd
			out["candidates"].([]any)[0].(map[string]any)["content"] = map[string]any{"role": "model", "parts": []any{
				map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
					"args": map[string]any{"command": cmd, "description": "Create the file for " + cw}}}}}
		}
		s.record(rec)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		sse(w, "", out)
	case r.Method == http.MethodPost && strings.HasSuffix(path, ":generateContent"):
		rec.Prompt = lastUser(m["contents"])
		gc, _ := m["generationConfig"].(map[string]any)
		mime, _ := gc["responseMimeType"].(string)
		text := "Stand-in"
		if mime == "application/json" {
			b, _ := json.Marshal(map[string]any{
				"reasoning": "stand-in", "model_choice": "flash", "next_speaker": "user",
				"complexity_reasoning": "stand-in", "complexity_score": 1,
				"unproductive_state_confidence": 0, "unproductive_state_analysis": "none", "confidence": 0,
			})
			text = string(b)
		}
		rec.Reply = text
		s.record(rec)
		writeJSON(w, 200, candidate(text))
	default:
		s.record(rec)
		writeJSON(w, 404, map[string]any{"error": map[string]any{"code": 404, "message": "not here", "status": "NOT_FOUND"}})
	}
}

// hasTool: an Anthropic tools list offers a tool of that name.
func hasTool(tools []any, name string) bool {
	for _, t := range tools {
		if m, _ := t.(map[string]any); m != nil && m["name"] == name {
			return true
		}
	}
	return false
}

// anthropicToolResult: the last message hands back a tool's result.
func anthropicToolResult(msgs any) bool {
	list, _ := msgs.([]any)
	if len(list) == 0 {
		return false
	}
	m, _ := list[len(list)-1].(map[string]any)
	blocks, _ := m["content"].([]any)
	for _, b := range blocks {
		if bm, _ := b.(map[string]any); bm != nil && bm["type"] == "tool_result" {
			return true
		}
	}
	return false
}

// openaiToolResult: the input ends with a tool call's output.
func openaiToolResult(input any) bool {
	list, _ := input.([]any)
	for i := len(list) - 1; i >= 0; i-- {
		m, _ := list[i].(map[string]any)
		switch m["type"] {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			return true
		case "message":
			if m["role"] == "user" {
				return false
			}
		}
	}
	return false
}

// openaiTools lists the tools a Responses call offers, flattened: the
// top-level "tools", and those an "additional_tools" input item carries in
// namespaces (Codex 0.169 sends its tools that way).
func openaiTools(m map[string]any) []map[string]any {
	var out []map[string]any
	var walk func(v any)
	walk = func(v any) {
		list, _ := v.([]any)
		for _, t := range list {
			tm, _ := t.(map[string]any)
			if tm == nil {
				continue
			}
			if tm["type"] == "namespace" {
				walk(tm["tools"])
				continue
			}
			out = append(out, tm)
		}
	}
	walk(m["tools"])
	input, _ := m["input"].([]any)
	for _, it := range input {
		if im, _ := it.(map[string]any); im != nil && im["type"] == "additional_tools" {
			walk(im["tools"])
		}
	}
	return out
}

// codexShellCall is the output item that has Codex run cmd outside its
// sandbox (sandbox_permissions require_escalated), which Codex runs only
// once the user approves: through its shell tool where one is offered, or,
// in Codex's code mode, a call of its "exec" tool (JavaScript) that calls
// the nested exec_command. nil when neither is offered.
func codexShellCall(tools []map[string]any, cmd string) map[string]any {
	names := map[string]bool{}
	for _, t := range tools {
		if n, _ := t["name"].(string); n != "" {
			names[n] = true
		}
	}
	const why = "Create the file the user asked for?"
	a := map[string]any{"sandbox_permissions": "require_escalated", "justification": why}
	name := ""
	switch {
	case names["exec_command"]:
		name, a["cmd"] = "exec_command", cmd
	case names["shell_command"]:
		name, a["command"] = "shell_command", cmd
	case names["shell"]:
		name, a["command"] = "shell", []string{"bash", "-lc", cmd}
	case names["exec"]:
		a["cmd"] = cmd
		b, _ := json.Marshal(a)
		return map[string]any{"type": "custom_tool_call", "name": "exec",
			"input": "const r = await tools.exec_command(" + string(b) + ");\ntext(r.output);\n"}
	default:
		return nil
	}
	b, _ := json.Marshal(a)
	return map[string]any{"type": "function_call", "name": name, "arguments": string(b)}
}

// geminiToolResult: the last content hands back a function's response.
func geminiToolResult(contents any) bool {
	list, _ := contents.([]any)
	if len(list) == 0 {
		return false
	}
	m, _ := list[len(list)-1].(map[string]any)
	parts, _ := m["parts"].([]any)
	for _, p := range parts {
		if pm, _ := p.(map[string]any); pm != nil && pm["functionResponse"] != nil {
			return true
		}
	}
	return false
}

// geminiHasTool: the request declares a function of that name.
func geminiHasTool(tools any, name string) bool {
	list, _ := tools.([]any)
	for _, t := range list {
		m, _ := t.(map[string]any)
		decls, _ := m["functionDeclarations"].([]any)
		for _, d := range decls {
			if dm, _ := d.(map[string]any); dm != nil && dm["name"] == name {
				return true
			}
		}
	}
	return false
}
