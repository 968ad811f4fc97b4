//go:build race

package fakeagents_test

// Under -race the fakes are built with the race detector too. Its default
// one-second sleep at exit would distort every exit timing.
func init() {
	buildFlags = append(buildFlags, "-race")
	agentEnv = append(agentEnv, "GORACE=atexit_sleep_ms=0 exitcode=66")
}
