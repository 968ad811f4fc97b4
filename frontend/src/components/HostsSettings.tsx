import { useEffect, useState } from 'react';
import { errorText } from '../actions';
import { useServices } from '../context';
import { hostState, withLiveStatus } from '../hosts';
import { useStore } from '../store';

/** What the add form holds when Settings closes (Esc): it is there again on the next opening. */
const unsent = { name: '', ssh: '' };

/**
 * Settings → Hosts: the remote machines panes can run on (`reprise hosts …`), each with its ssh
 * destination and its link as this host sees it; add (name + [user@]host[:port] or an ssh-config
 * alias) and remove (refused by the host while terminals run there).
 */
export function HostsSettings() {
  const { store, actions } = useServices();
  const hosts = useStore(store, (s) => s.hosts);
  const live = useStore(store, (s) => s.hostStatus);
  const [name, setNameState] = useState(unsent.name);
  const [ssh, setSshState] = useState(unsent.ssh);
  const setName = (v: string) => setNameState((unsent.name = v));
  const setSsh = (v: string) => setSshState((unsent.ssh = v));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void actions.loadHosts();
  }, [actions]);

  const add = async () => {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await actions.addHost(name, ssh);
      setName('');
      setSsh('');
    } catch (err) {
      setError(errorText(err).split('\n')[0] ?? '');
    } finally {
      setBusy(false);
    }
  };
  const remove = async (h: string) => {
    setError(null);
    try {
      await actions.removeHost(h);
    } catch (err) {
      setError(errorText(err).split('\n')[0] ?? '');
    }
  };

  const list = withLiveStatus(hosts ?? [], live);
  return (
    <div className="settings-scroll" data-testid="hosts-settings">
      <h2 className="settings-section-title">Hosts</h2>
      <p className="field-hint">
        Remote machines reached with your own <code>ssh</code> and <code>~/.ssh/config</code> (keys, agent, ProxyJump). A tab or an
        agent can run on one: right-click <b>+</b> or “New tab on host…” in the palette; the New agent menu has a Host choice.
      </p>
      {hosts === null && <div className="muted">Loading hosts…</div>}
      {hosts !== null && list.length === 0 && <div className="muted" data-testid="hosts-empty">No remote hosts yet.</div>}
      {list.length > 0 && (
        <table className="hosts-table" data-testid="hosts-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>SSH destination</th>
              <th>Status</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.map((h) => {
              const st = hostState(h.status);
              return (
                <tr key={h.name} data-testid="host-row" data-host={h.name}>
                  <td className="host-name">{h.name}</td>
                  <td>
                    <code>{h.ssh}</code>
                  </td>
                  <td>
                    <span className={'host-status host-' + st} data-testid="host-status" title={h.status.message || undefined}>
                      {st}
                    </span>
                  </td>
                  <td>
                    <button className="button" data-testid="host-remove" aria-label={`Remove host ${h.name}`} onClick={() => void remove(h.name)}>
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <form
        className="host-add"
        data-testid="host-add"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <label>
          <span className="field-label">Name</span>
          <input className="text-input" data-testid="host-name" value={name} placeholder="devbox" spellCheck={false} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          <span className="field-label">SSH destination</span>
          <input
            className="text-input"
            data-testid="host-ssh"
            value={ssh}
            placeholder="[user@]host[:port] or an ssh alias"
            spellCheck={false}
            onChange={(e) => setSsh(e.target.value)}
          />
        </label>
        <button className="button primary" type="submit" data-testid="host-add-button" disabled={busy || !name.trim() || !ssh.trim()}>
          Add host
        </button>
      </form>
      {error && (
        <div className="form-error" role="alert" data-testid="hosts-error">
          {error}
        </div>
      )}
    </div>
  );
}
