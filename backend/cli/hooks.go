package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/reprise-dev/reprise/backend/hooks/install"
)

// hooksCommand is `reprise hooks install|status --agent ID`: Reprise's
// hooks in an agent's own config under this user's home, calling this
// binary. A host runs it over ssh on a remote host, so the remote user's
// configs are merged there by the same code as locally (the user's own
// hooks kept byte for byte) and the hooks call the remote binary.
func hooksCommand(env Env) *cobra.Command {
	hooks := &cobra.Command{
		Use:   "hooks",
		Short: "Reprise's hooks in an agent's own config (this user, this machine)",
		Args:  cobra.ArbitraryArgs,
		RunE:  group("hooks", "'install' or 'status'"),
	}
	var agent, exe string
	installer := func() (install.Installer, error) {
		if agent == "" {
			return install.Installer{}, usageError{"needs --agent ID (" + fmt.Sprint(install.Supported()) + ")"}
		}
		in := install.Installer{Exe: exe, ClaudeConfigDir: os.Getenv("CLAUDE_CONFIG_DIR"), CodexHome: os.Getenv("CODEX_HOME")}
		home, err := os.UserHomeDir()
		if err != nil {
			return in, fmt.Errorf("find home directory: %w", err)
		}
		in.Home = home
		if in.Exe == "" {
			if in.Exe, err = os.Executable(); err != nil {
				return in, fmt.Errorf("find own executable: %w", err)
			}
		}
		if !filepath.IsAbs(in.Exe) {
			return in, usageError{fmt.Sprintf("--exe %q is not an absolute path", in.Exe)}
		}
		return in, nil
	}
	report := func(in install.Installer) error {
		st, err := in.Status(agent)
		if err != nil {
			return err
		}
		state := "not installed"
		switch {
		case st.Installed:
			state = "installed"
		case st.Partial:
			state = "partly installed"
		}
		fmt.Fprintf(env.Stdout, "%s hooks %s in %s\n", agent, state, st.Path)
		return nil
	}
	inst := &cobra.Command{
		Use:   "install --agent ID",
		Short: "Install (or update) Reprise's hooks in an agent's config",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			in, err := installer()
			if err != nil {
				return err
			}
			// The hooks run "… && EXE hook … || true": a missing EXE was
			// installed, and every hook then failed without a word, so
			// Reprise never learnt a session id.
			if st, err := os.Stat(in.Exe); err != nil {
				return usageError{fmt.Sprintf("--exe %q: %v", in.Exe, errors.Unwrap(err))}
			} else if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
				return usageError{fmt.Sprintf("--exe %q is not an executable file", in.Exe)}
			}
			if err := in.Install(agent); err != nil {
				if errors.Is(err, install.ErrUnknownAgent) {
					return usageError{err.Error()}
				}
				return err
			}
			return report(in)
		}),
	}
	status := &cobra.Command{
		Use:   "status --agent ID",
		Short: "Say whether Reprise's hooks are in an agent's config",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			in, err := installer()
			if err != nil {
				return err
			}
			if err := report(in); errors.Is(err, install.ErrUnknownAgent) {
				return usageError{err.Error()} // as install says it
			} else if err != nil {
				return err
			}
			return nil
		}),
	}
	for _, c := range []*cobra.Command{inst, status} {
		c.Flags().StringVar(&agent, "agent", "", "agent id: "+fmt.Sprint(install.Supported()))
		c.Flags().StringVar(&exe, "exe", "", "the reprise binary the hooks call (default: this one)")
		hooks.AddCommand(c)
	}
	return hooks
}
