// Package fake is the shared machinery of the fake agent CLIs under
// internal/fakeagents/cmd: hook config loading and merging, running hook
// commands the way Claude Code and Codex do, the on-disk conversation
// formats (Claude transcripts, Codex rollouts), the start log, and the
// line-mode REPL with the agents' signal behaviour.
//
// The fakes follow the contracts written down in AGENTS.md ("Running the
// real CLIs offline" is the spec), so tests that pass against them say
// something about the real CLIs. Tests can use the exported path helpers
// (ClaudeTranscriptPath, FindCodexRollout, ReadStarts, …) to look at what a
// fake left on disk.
package fake
