package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/reprise-dev/reprise/sdk"
)

// Start Claude with a prompt, interrupt it the hard way, and bring the
// conversation back in the same pane.
//
// The example runs against a throwaway host with a fake Claude on its
// PATH; against your own Reprise (the desktop app or `reprise serve`),
// connect with sdk.Connect(ctx, "").
func Example_resumeInterrupted() {
	th, err := startTestHost()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer th.stop()
	ctx := context.Background()

	c, err := sdk.Connect(ctx, th.home.Dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := c.CreateAgent(ctx, sdk.CreateAgentRequest{Agent: "claude", Prompt: "remember PAPAYA-77", Cwd: th.work})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Only a conversation that has taken a prompt can be resumed.
	until(func() bool { b, err := c.Binding(ctx, run.TerminalID); return err == nil && b.Prompted })

	// Interrupt: kill -9 the agent's terminal, shell and all.
	terms, _ := c.Terminals(ctx)
	for _, t := range terms {
		if t.ID == run.TerminalID {
			syscall.Kill(-t.PID, syscall.SIGKILL)
		}
	}

	var cands []sdk.Binding
	until(func() bool { cands, _ = c.ResumeCandidates(ctx); return len(cands) == 1 })
	if len(cands) != 1 {
		fmt.Println("no resume candidate")
		return
	}
	fmt.Println("interrupted:", cands[0].AgentLabel)

	r, err := c.Resume(ctx, cands[0].TerminalID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("same session:", r.SessionID == run.SessionID)
	fmt.Println("same pane:", r.PaneID == run.PaneID)
	fmt.Println("new terminal:", r.TerminalID != run.TerminalID)
	// Output:
	// interrupted: Claude Code
	// same session: true
	// same pane: true
	// new terminal: true
}

// Connect fails with ErrNoHost when no Reprise serves the home; the CLI
// then starts a host in-process instead.
func ExampleConnect() {
	home, _ := os.MkdirTemp("", "rs")
	defer os.RemoveAll(home)

	_, err := sdk.Connect(context.Background(), home)
	fmt.Println(errors.Is(err, sdk.ErrNoHost))
	// Output: true
}
