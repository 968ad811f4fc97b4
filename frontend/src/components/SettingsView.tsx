import { useEffect, useId, useRef, useState } from 'react';
import { errorText } from '../actions';
import { blankAgent } from '../agents/form';
import { daysMeaning, parseBool, parseDays } from '../agents/settings';
import type { Agent, OnInterrupt, SettingKey } from '../api';
import { useServices } from '../context';
import { useStore } from '../store';
import { AgentAvatar } from './AgentAvatar';
import { AgentForm } from './AgentForm';
import { AppearanceSettings } from './AppearanceSettings';
import { CloseIcon, PlusIcon } from './icons';
import { NotificationSettings } from './NotificationSettings';
import { HostsSettings } from './HostsSettings';

const NEW = '\0new';

type Section = 'agents' | 'appearance' | 'privacy' | 'notifications' | 'hosts';

const SECTIONS: { id: Section; label: string }[] = [
  { id: 'agents', label: 'Agents' },
  { id: 'appearance', label: 'Appearance' },
  { id: 'privacy', label: 'Sessions & privacy' },
  { id: 'notifications', label: 'Notifications' },
  { id: 'hosts', label: 'Hosts' },
];

/** Settings over the terminals (the gear, Ctrl+,; Esc closes): Agents, Sessions & privacy. */
export function SettingsView() {
  const { store, actions } = useServices();
  const [section, setSection] = useState<Section>(() => {
    const want = store.get().settingsSection;
    return want === 'appearance' || want === 'hosts' ? want : 'agents';
  });
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // The keyboard leaves the terminal for the view.
    ref.current?.focus();
    store.set('settingsSection', null);
  }, [store]);
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
          {SECTIONS.map((x) => (
            <button
              key={x.id}
              className={'settings-nav-item' + (section === x.id ? ' active' : '')}
              data-testid={`settings-nav-${x.id}`}
              aria-current={section === x.id ? 'page' : undefined}
              onClick={() => setSection(x.id)}
            >
              {x.label}
            </button>
          ))}
        </nav>
        <div className="settings-content">
          {section === 'agents' ? (
            <AgentsSettings />
          ) : section === 'appearance' ? (
            <AppearanceSettings />
          ) : section === 'privacy' ? (
            <PrivacySettings />
          ) : section === 'hosts' ? (
            <HostsSettings />
          ) : (
            <NotificationSettings />
          )}
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

/** Settings → Sessions & privacy: what Reprise brings back after a restart, and what it keeps on disk. */
function PrivacySettings() {
  return (
    <div className="settings-scroll" data-testid="privacy-settings">
      <h2 className="settings-section-title">Sessions &amp; privacy</h2>
      <ToggleSetting
        settingKey="agents.continueAfterRestart"
        def={false}
        testId="continue-after-restart"
        label="Continue agent sessions after restarts"
        hint="After a reboot or a pty daemon restart, resume every interrupted agent automatically — the focused pane first, at most three at a time."
      />
      <ToggleSetting
        settingKey="scrollback.persist"
        def={true}
        testId="scrollback-persist"
        label="Keep terminal output on disk"
        hint="When off, new panes keep nothing on disk; their output can't be restored after a crash."
      />
      <DaysSetting
        settingKey="sessions.retentionDays"
        testId="sessions-retention-days"
        label="Keep agent sessions for"
        hint="Sessions that ended longer ago leave the Sessions list, with their saved output."
      />
      <DaysSetting
        settingKey="scrollback.retentionDays"
        testId="scrollback-retention-days"
        label="Keep scrollback of closed terminals for"
        hint="Saved output of terminals that ended longer ago and are no longer in a pane is deleted."
      />
    </div>
  );
}

const SAVED_MS = 2500;

/** One setting as the host has it: loads it, saves it, says "Saved" or the host's error. */
function useSetting(key: SettingKey) {
  const { actions } = useServices();
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const seq = useRef(0);

  useEffect(() => {
    let live = true;
    actions.getSetting(key).then(
      (v) => live && setValue(v),
      (err: unknown) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [actions, key]);

  useEffect(() => {
    if (!saved) return;
    const t = setTimeout(() => setSaved(false), SAVED_MS);
    return () => clearTimeout(t);
  }, [saved]);

  /** Saves v; resolves false (with the error shown) when the host refused it. */
  const save = async (v: string): Promise<boolean> => {
    const mine = ++seq.current;
    setSaved(false);
    try {
      await actions.setSetting(key, v);
      if (mine !== seq.current) return true;
      setValue(v);
      setError(null);
      setSaved(true);
      return true;
    } catch (err) {
      if (mine === seq.current) setError(errorText(err));
      return false;
    }
  };
  return { value, error, saved, save, setError };
}

function SavedPill({ saved, testId }: { saved: boolean; testId: string }) {
  return (
    <span className={'pill saved-pill' + (saved ? ' shown' : '')} role="status" aria-live="polite" data-testid={`${testId}-status`}>
      {saved ? 'Saved' : ''}
    </span>
  );
}

function ToggleSetting({ settingKey, def, testId, label, hint }: { settingKey: SettingKey; def: boolean; testId: string; label: string; hint: string }) {
  const { value, error, saved, save } = useSetting(settingKey);
  const [pending, setPending] = useState<boolean | null>(null);
  const id = useId();
  const checked = pending ?? parseBool(value, def);
  const change = async (on: boolean) => {
    setPending(on);
    await save(on ? 'true' : 'false');
    setPending(null);
  };
  return (
    <div className="setting" data-testid={`${testId}-setting`}>
      <div className="setting-row">
        <div className="setting-text">
          <label className="check-row setting-title">
            <input
              type="checkbox"
              data-testid={testId}
              checked={checked}
              disabled={value === null}
              aria-describedby={`${id}-hint`}
              onChange={(e) => void change(e.target.checked)}
            />
            <span>{label}</span>
          </label>
          <div className="field-hint check-hint" id={`${id}-hint`}>
            {hint}
          </div>
        </div>
        <SavedPill saved={saved} testId={testId} />
      </div>
      {error && (
        <div className="field-error" role="alert" data-testid={`${testId}-error`}>
          {error}
        </div>
      )}
    </div>
  );
}

const DAYS_SAVE_DELAY_MS = 600;

function DaysSetting({ settingKey, testId, label, hint }: { settingKey: SettingKey; testId: string; label: string; hint: string }) {
  const { value, error: hostError, saved, save, setError } = useSetting(settingKey);
  const [text, setText] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const id = useId();
  const shown = text ?? value ?? '';
  const parsed = text === null ? null : parseDays(text);
  const error = parsed && !parsed.ok ? parsed.error : hostError;

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const flush = (t: string | null = text) => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    if (t === null) return;
    const r = parseDays(t);
    if (!r.ok || r.value === value) return;
    void save(r.value);
  };

  const change = (t: string) => {
    setText(t);
    setError(null);
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    const r = parseDays(t);
    if (r.ok && r.value !== value) timer.current = setTimeout(() => flush(t), DAYS_SAVE_DELAY_MS);
  };

  const meaning = daysMeaning(shown);
  return (
    <div className={'setting' + (error ? ' invalid' : '')} data-testid={`${testId}-setting`}>
      <div className="setting-row">
        <div className="setting-text">
          <label className="setting-title" htmlFor={id}>
            {label}
          </label>
          <div className="field-hint" id={`${id}-hint`}>
            {hint} <span data-testid={`${testId}-meaning`}>{meaning || '0 keeps forever.'}</span>
          </div>
        </div>
        <div className="setting-choices">
          <span className="days-field">
            <input
              id={id}
              className="text-input days-input"
              data-testid={testId}
              type="text"
              inputMode="numeric"
              autoComplete="off"
              spellCheck={false}
              value={shown}
              disabled={value === null}
              aria-invalid={error ? true : undefined}
              aria-describedby={`${id}-hint` + (error ? ` ${id}-error` : '')}
              onChange={(e) => change(e.target.value)}
              onBlur={() => {
                flush();
                const r = text === null ? null : parseDays(text);
                if (r?.ok) setText(r.value);
              }}
              onKeyDown={(e) => {
                if (e.key === 'Enter') flush();
              }}
            />
            <span className="muted">days</span>
          </span>
          <SavedPill saved={saved} testId={testId} />
        </div>
      </div>
      {error && (
        <div className="field-error" role="alert" id={`${id}-error`} data-testid={`${testId}-error`}>
          {error}
        </div>
      )}
    </div>
  );
}
