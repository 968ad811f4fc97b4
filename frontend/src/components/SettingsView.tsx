import { useEffect, useRef, useState } from 'react';
import { errorText } from '../actions';
import { blankAgent } from '../agents/form';
import type { Agent, OnInterrupt } from '../api';
import { useServices } from '../context';
import { useStore } from '../store';
import { AgentAvatar } from './AgentAvatar';
import { AgentForm } from './AgentForm';
import { CloseIcon, PlusIcon } from './icons';

const NEW = '\0new';

/** Settings over the terminals (the gear, Ctrl+,; Esc closes): for now, Agents. */
export function SettingsView() {
  const { actions } = useServices();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // The keyboard leaves the terminal for the view.
    ref.current?.focus();
  }, []);
  return (
    <div className="workspace-view settings-view" data-testid="settings-view" role="region" aria-label="Settings" tabIndex={-1} ref={ref}>
      <header className="view-header">
        <h1>Settings</h1>
        <button className="icon-button" data-testid="close-settings" aria-label="Close settings" title="Close (Esc)" onClick={() => actions.showTerminals()}>
          <CloseIcon />
        </button>
      </header>
      <div className="settings-body">
        <nav className="settings-nav" aria-label="Settings sections">
          <button className="settings-nav-item active" aria-current="page">
            Agents
          </button>
        </nav>
        <div className="settings-content">
          <AgentsSettings />
        </div>
      </div>
    </div>
  );
}

function AgentsSettings() {
  const { store, actions } = useServices();
  const agents = useStore(store, (s) => s.agents);
  const [selected, setSelected] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    actions.loadAgents().then(
      () => setLoadError(null),
      (err: unknown) => setLoadError(errorText(err)),
    );
  }, [actions]);

  const list = agents ?? [];
  const current: Agent | undefined = selected === NEW ? undefined : (list.find((a) => a.id === selected) ?? list[0]);
  const currentId = selected === NEW ? NEW : current?.id;

  return (
    <>
      <h2 className="settings-section-title">Agents</h2>
      <InterruptSetting />
      {loadError && (
        <div className="form-error" role="alert">
          Couldn't load agents: {loadError}
        </div>
      )}
      <div className="agents-split">
        <div className="agent-list-column">
          <ul className="agent-list" aria-label="Agents">
            {list.map((a) => (
              <li key={a.id}>
                <button
                  className={'agent-row' + (a.id === currentId ? ' selected' : '')}
                  data-testid="agent-row"
                  data-agent-id={a.id}
                  aria-current={a.id === currentId ? 'true' : undefined}
                  onClick={() => setSelected(a.id)}
                >
                  <AgentAvatar id={a.id} label={a.label} size={24} />
                  <span className="agent-row-text">
                    <span className="agent-row-label">
                      {a.label}
                      {a.edited && (
                        <span className="edited-dot" title="Changed from the default" aria-label="edited">
                          •
                        </span>
                      )}
                    </span>
                    <code className="agent-row-command">{a.command}</code>
                  </span>
                  <span
                    className={'badge ' + (a.found ? 'found' : 'missing')}
                    data-testid="agent-found"
                    title={a.found ? a.path || a.command : `${a.command} was not found on PATH`}
                  >
                    {a.found ? 'found on PATH' : 'not found'}
                  </span>
                </button>
              </li>
            ))}
            {!agents && !loadError && <li className="muted agent-list-note">Loading…</li>}
          </ul>
          <button className="button add-agent" data-testid="add-agent" onClick={() => setSelected(NEW)}>
            <PlusIcon /> Add agent
          </button>
        </div>
        <div className="agent-detail">
          {selected === NEW ? (
            <AgentForm key={NEW} agent={blankAgent()} isNew onCreated={(a) => setSelected(a.id)} />
          ) : current ? (
            <AgentForm key={current.id} agent={current} />
          ) : null}
        </div>
      </div>
    </>
  );
}

const INTERRUPT_OPTIONS: { value: OnInterrupt; label: string; hint: string }[] = [
  { value: 'banner', label: 'Show a Resume button', hint: 'The pane says the agent was interrupted and offers to resume it.' },
  { value: 'auto', label: 'Resume automatically', hint: 'Reprise resumes the conversation in the same pane on its own, once.' },
];

/** agents.onInterrupt: banner (default) or auto. */
function InterruptSetting() {
  const { actions } = useServices();
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    let live = true;
    actions.getSetting('agents.onInterrupt').then(
      (v) => live && setValue(v || 'banner'),
      (err: unknown) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [actions]);

  useEffect(() => {
    if (!saved) return;
    const t = setTimeout(() => setSaved(false), 2500);
    return () => clearTimeout(t);
  }, [saved]);

  const change = async (v: OnInterrupt) => {
    const before = value;
    setValue(v);
    setSaved(false);
    try {
      await actions.setSetting('agents.onInterrupt', v);
      setError(null);
      setSaved(true);
    } catch (err) {
      setValue(before);
      setError(errorText(err));
    }
  };

  return (
    <fieldset className="setting" data-testid="on-interrupt">
      <legend className="visually-hidden">When an agent is interrupted</legend>
      <div className="setting-row">
        <div className="setting-text">
          <div className="setting-title" aria-hidden="true">
            When an agent is interrupted
          </div>
          <div className="field-hint">When a pane's terminal dies under an agent (killed, daemon restarted, reboot).</div>
        </div>
        <div className="setting-choices">
          {INTERRUPT_OPTIONS.map((o) => (
            <label key={o.value} className="radio-row" title={o.hint}>
              <input
                type="radio"
                name="agents.onInterrupt"
                value={o.value}
                data-testid={`on-interrupt-${o.value}`}
                checked={value === o.value}
                disabled={value === null}
                onChange={() => void change(o.value)}
              />
              <span>{o.label}</span>
            </label>
          ))}
          <span className={'pill saved-pill' + (saved ? ' shown' : '')} role="status" aria-live="polite" data-testid="on-interrupt-status">
            {saved ? 'Saved' : ''}
          </span>
        </div>
      </div>
      {error && (
        <div className="field-error" role="alert">
          {error}
        </div>
      )}
    </fieldset>
  );
}
