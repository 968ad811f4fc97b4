package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/reprise-dev/reprise/backend/paths"
	"github.com/reprise-dev/reprise/backend/remote"
	"github.com/reprise-dev/reprise/backend/safefile"
	"github.com/reprise-dev/reprise/backend/store"
)

// hostsCommand is `reprise hosts add|list|remove|check`: remote machines
// whose terminals run in their own pty daemon, reached with the system ssh.
func hostsCommand(home *string, env Env) *cobra.Command {
	hosts := &cobra.Command{
		Use:   "hosts",
		Short: "Remote hosts reached over ssh",
		Args:  cobra.ArbitraryArgs,
		RunE:  group("hosts", "'add', 'list', 'remove' or 'check'"),
	}
	var dest, remoteHome, sshConfig string
	add := &cobra.Command{
		Use:   "add NAME --ssh [user@]host[:port]",
		Short: "Add a remote host (uses your ssh and ~/.ssh/config)",
		Args:  exactArgs(1, "a host name"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			if !store.ValidHostName(args[0]) {
				return usageError{"hosts add: " + store.InvalidHostName(args[0]).Error()}
			}
			if dest == "" {
				return usageError{"hosts add needs --ssh [user@]host[:port]"}
			}
			if err := remote.ValidateDest(dest); err != nil {
				return usageError{err.Error()}
			}
			if sshConfig != "" {
				// Stored as given, a relative path meant another file (or
				// none) when `hosts check` or the host ran from another
				// directory, and a missing file was only noticed at the
				// first connection.
				abs, err := filepath.Abs(sshConfig)
				if err == nil {
					_, err = safefile.Stat(abs)
				}
				if err != nil {
					return usageError{fmt.Sprintf("--ssh-config: %v", err)}
				}
				sshConfig = abs
			}
			return withHostStore(*home, func(ctx context.Context, st *store.Store, _ paths.Home) error {
				h, err := st.AddHost(ctx, store.Host{Name: args[0], SSH: dest, RemoteHome: remoteHome, SSHConfig: sshConfig})
				if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "added host %s (ssh %s); check it with: reprise hosts check %s\n", h.Name, h.SSH, h.Name)
				return nil
			})
		}),
	}
	add.Flags().StringVar(&dest, "ssh", "", "ssh destination: [user@]host[:port] or an alias from ~/.ssh/config")
	add.Flags().StringVar(&remoteHome, "remote-home", "", "Reprise home on the remote (default: its ~/.local/share/reprise)")
	add.Flags().StringVar(&sshConfig, "ssh-config", "", "ssh config file to use instead of ~/.ssh/config (ssh -F)")

	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List remote hosts",
		Args:  noArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return withHostStore(*home, func(ctx context.Context, st *store.Store, _ paths.Home) error {
				hs, err := st.ListHosts(ctx)
				if err != nil {
					return err
				}
				if asJSON {
					type row struct {
						Name       string `json:"name"`
						SSH        string `json:"ssh"`
						RemoteHome string `json:"remoteHome,omitempty"`
						SSHConfig  string `json:"sshConfig,omitempty"`
					}
					rows := []row{}
					for _, h := range hs {
						rows = append(rows, row{h.Name, h.SSH, h.RemoteHome, h.SSHConfig})
					}
					enc := json.NewEncoder(env.Stdout)
					enc.SetIndent("", "  ")
					return enc.Encode(rows)
				}
				if len(hs) == 0 {
					fmt.Fprintln(env.Stdout, "no hosts; add one with: reprise hosts add NAME --ssh [user@]host[:port]")
					return nil
				}
				tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tSSH\tREMOTE HOME")
				for _, h := range hs {
					rh := h.RemoteHome
					if rh == "" {
						rh = "(default)"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\n", h.Name, h.SSH, rh)
				}
				return tw.Flush()
			})
		}),
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Forget a remote host (refused while terminals run there)",
		Args:  exactArgs(1, "a host name"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return withHostStore(*home, func(ctx context.Context, st *store.Store, _ paths.Home) error {
				if err := st.RemoveHost(ctx, args[0]); err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "removed host %s\n", args[0])
				return nil
			})
		}),
	}

	check := &cobra.Command{
		Use:   "check NAME",
		Short: "Connect to a host: install or upgrade reprise there, start its daemon, list its sessions",
		Args:  exactArgs(1, "a host name"),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return withHostStore(*home, func(ctx context.Context, st *store.Store, hm paths.Home) error {
				h, err := st.GetHost(ctx, args[0])
				if err != nil {
					return err
				}
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("find own executable: %w", err)
				}
				// The bound covers a prompt answered on the terminal.
				cctx, cancel := context.WithTimeout(ctx, 90*time.Second+remote.DefaultAskTimeout)
				defer cancel()
				t, stop, err := cliAskpass(remote.ForHost(hm.Dir, h.Name, h.SSH, h.RemoteHome, h.SSHConfig), hm.RunDir(), exe)
				if err != nil {
					return err
				}
				defer stop()
				line, err := t.Check(cctx, exe)
				if err != nil {
					return err
				}
				fmt.Fprintln(env.Stdout, line)
				return nil
			})
		}),
	}
	hosts.AddCommand(add, list, remove, check)
	return hosts
}

func withHostStore(homeFlag string, fn func(context.Context, *store.Store, paths.Home) error) error {
	home, err := paths.Resolve(homeFlag)
	if err != nil {
		return err
	}
	if err := home.Ensure(); err != nil {
		return err
	}
	ctx := context.Background()
	st, err := store.Open(ctx, home.DB(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(ctx, st, home)
}
