// Package fakeagents holds fake agent CLIs for tests: cmd/claude,
// cmd/codex and cmd/gemini answer every prompt with "ack: <prompt>" and
// otherwise follow the contracts of ../shared/AGENTS.md that Reprise relies
// on. The shared machinery is in package fake; this package only has the
// tests that drive the fakes in real ptys.
//
// Build them and put the directory first on PATH:
//
//	go build -o DIR/claude ./internal/fakeagents/cmd/claude
//	go build -o DIR/codex  ./internal/fakeagents/cmd/codex
//	go build -o DIR/gemini ./internal/fakeagents/cmd/gemini
//
// All (gemini's signals and timeouts below are its own):
//   - give each run its own HOME; $FAKE_AGENT_LOG (optional) gets one JSON
//     line per start, {"pid","argv" (argv[0] included),"cwd","time"}, even for
//     refused starts (fake.ReadStarts reads it);
//   - read lines from the terminal (canonical mode; type "text\r"); any line
//     not starting with '/' is a turn, answered "● ack: <line>"; a prompt on
//     argv is the first turn;
//   - run hooks as /bin/sh -c COMMAND with the payload JSON on stdin, the
//     agent's environment, the handler's timeout (seconds, default 60), in
//     parallel, waiting for them, output discarded, failures ignored;
//     matchers "", "*" or absent match all, otherwise a regexp on the whole
//     SessionStart source / SessionEnd reason; an identical command string
//     runs once per event;
//   - SIGTERM: exit 143, no hooks; SIGINT ignored; SIGKILL: nothing.
//
// claude (state in $CLAUDE_CONFIG_DIR, default $HOME/.claude):
//   - flags: --session-id UUID, --resume|-r ID, --settings FILE|JSON,
//     --dangerously-skip-permissions, one positional prompt; any other flag
//     is refused (exit 1);
//   - hooks merged from CONFIG/settings.json, CWD/.claude/settings.json,
//     CWD/.claude/settings.local.json and --settings;
//   - ready marker "? for shortcuts" (printed again after every turn);
//   - SessionStart startup|resume|clear at once; a turn appends to
//     CONFIG/projects/<cwd, non-alphanumerics as '->/<id>.jsonl, then runs
//     UserPromptSubmit, prints the reply, runs Stop (stop_hook_active false);
//     a turn "hold …" prints "● holding" and replies only after the next
//     line; a turn "ask …" runs Notification (notification_type
//     permission_prompt, matcher target the type), prints "Do you want to
//     proceed?", and on the next line runs PostToolUse (tool_name Bash,
//     target Bash), prints "● ran Bash", and replies after one more line;
//     a turn "fail …" prints "⎿  API Error: 529 Overloaded" and runs
//     StopFailure (error overloaded_error) instead of replying and Stop;
//   - /exit (or /quit, or Ctrl-D): SessionEnd prompt_input_exit, exit 0;
//     /clear: SessionEnd clear, new UUIDv4, SessionStart clear;
//     SIGHUP or a closed pty: SessionEnd other, "Resume this session with:
//     claude --resume <id>", exit 129; SessionEnd handlers share 1.5 s;
//   - --resume ID prints the old turns then SessionStart resume (same id);
//     with no transcript in this cwd's project: "No conversation found with
//     session ID: <id>", SessionEnd other for a throwaway id, exit 1;
//     --session-id of a session with a transcript: "Error: Session ID <id> is
//     already in use.", exit 1, no hooks;
//   - payload session_id, transcript_path, cwd, hook_event_name + source /
//     prompt / stop_hook_active / reason; env CLAUDE_CODE_SESSION_ID,
//     CLAUDE_PROJECT_DIR; FAKE_CLAUDE_SUBAGENT=1 adds "agent_id":"sub-1";
//   - CONFIG/sessions/<pid>.json {"pid","sessionId","cwd"}: written at start
//     and on /clear, removed on clean exit and SIGHUP, left by SIGKILL and
//     SIGTERM.
//
// codex (state in $CODEX_HOME, default $HOME/.codex):
//   - usage: codex [root flags] [resume ID] [--] [PROMPT]; root flags
//     --no-daemon, --dangerously-bypass-hook-trust, -c k=v, --disable X,
//     --enable X, --model|-m X, only before "resume"; bad usage exits 2;
//   - banner line "session: <UUIDv7>"; ready marker "› Ask Codex to do
//     anything" (printed again after every turn);
//   - hooks from HOME/hooks.json, run only with
//     --dangerously-bypass-hook-trust or when HOME/trusted-hooks lists the
//     sha256 hex of the file (fake.HashHooks); else "hooks not trusted;
//     skipping";
//   - no hook before the first prompt; then SessionStart startup (resume
//     when resumed), UserPromptSubmit (prompt, turn_id), reply, rollout
//     HOME/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl written,
//     Stop (turn_id; stdout must be empty or JSON, else "Stop hook returned
//     invalid JSON"), then notify; env CODEX_THREAD_ID;
//   - notify = ["prog", …] at the top of HOME/config.toml runs
//     prog … '{"type":"agent-turn-complete","thread-id","turn-id","cwd",
//     "input-messages","last-assistant-message"}' after each turn, not
//     waited for;
//   - /quit or /exit (or Ctrl-D): SessionEnd other (only if SessionStart
//     ran; never with FAKE_CODEX_NO_SESSIONEND=1), exit 0; SIGHUP: no hook,
//     exit 129;
//   - resume ID prints the old turns and continues the same id and rollout;
//     unknown id: "Error: No saved session found with ID <id>", exit 1; an id
//     that never had a turn: "Error: no rollout found for thread id <id>",
//     exit 1.
//
// gemini (state in $HOME/.gemini; fake/gemini.go says which parts AGENTS.md
// states and which follow the real CLI as the conformance suite saw it):
//   - flags: --session-id ID, --resume|-r ID, one positional prompt; any
//     other flag: "Unknown argument: X", exit 1;
//   - hooks from HOME/.gemini/settings.json (comments and trailing commas
//     allowed), timeouts in milliseconds; the hook's environment has
//     GEMINI_SESSION_ID and no variable whose name looks secret (KEY,
//     TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH);
//   - ready marker "Type your message"; SessionStart startup (resume when
//     resumed) at launch; a turn runs BeforeAgent (prompt), appends to the
//     chat file HOME/.gemini/tmp/<cwd's base name>/chats/session-<time>-<id
//     first 8>.jsonl, prints "✦ ack: <prompt>", runs AfterAgent (prompt,
//     prompt_response, stop_hook_active false);
//   - /quit, Ctrl-D, SIGHUP, SIGTERM, SIGINT: SessionEnd exit three times,
//     exit 0; a chat file with no reply is deleted then;
//   - --resume ID prints the old turns and continues the same id and chat
//     file; none with a reply in this cwd's project: "No previous sessions
//     found for this project.", exit 42;
//   - payload session_id, transcript_path (the chat file), cwd,
//     hook_event_name, timestamp + source / prompt / prompt_response /
//     reason.
package fakeagents
