import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { errorText, type AgentPlace } from '../actions';
import { tooltip } from '../keys';
import { runnableFirst } from '../agents/format';
import { useServices } from '../context';
import { useStore } from '../store';
import { AgentAvatar } from './AgentAvatar';
import { AgentIcon } from './icons';

const PLACES: { id: AgentPlace; label: string }[] = [
  { id: 'tab', label: 'New tab' },
  { id: 'right', label: 'Split right' },
  { id: 'down', label: 'Split down' },
  { id: 'here', label: 'This pane' },
];

/** The "New agent" button of the tab bar and its menu (also Ctrl+Shift+N): pick an agent, where, maybe a prompt, Run. */
export function NewAgentMenu() {
  const { store, actions } = useServices();
  const agents = useStore(store, (s) => s.agents);
  const open = useStore(store, (s) => s.newAgentOpen);
  const setOpen = (o: boolean) => store.set('newAgentOpen', o);
  const [where, setWhere] = useState<AgentPlace>('tab');
  // '' : this machine; else a remote host's name (agents.run {host}).
  const [host, setHost] = useState('');
  const hosts = useStore(store, (s) => s.hosts);
  const remote = host !== '' && !!hosts?.some((h) => h.name === host);
  const [selected, setSelected] = useState<string | null>(null);
  const [prompt, setPrompt] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const list = agents ? runnableFirst(agents) : [];
  // "found" is this machine's PATH; on a remote host its own PATH decides (the pane says when not).
  const usable = (a: { found: boolean }) => remote || a.found;
  const firstFound = list.find(usable)?.id ?? null;
  const choice = selected && list.some((a) => a.id === selected && usable(a)) ? selected : firstFound;

  // Closing gives the keyboard back to the terminal (the popover may have been opened by a key).
  const close = (refocus = true) => {
    setOpen(false);
    setError(null);
    if (refocus) actions.refocus();
  };
  // The listeners below always call the latest close (it reads the store, not stale state).
  const closeRef = useRef(close);
  closeRef.current = close;

  useEffect(() => {
    if (!open) return;
    let live = true;
    actions.loadAgents().catch((err: unknown) => live && setError(errorText(err)));
    void actions.loadHosts();
    const onPointer = (e: PointerEvent) => {
      if (!ref.current?.contains(e.target as Node)) closeRef.current(false);
    };
    // Capture: the menu's Esc must not also close a Settings or Sessions view under it.
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        closeRef.current();
      }
    };
    window.addEventListener('pointerdown', onPointer);
    window.addEventListener('keydown', onKey, true);
    return () => {
      live = false;
      window.removeEventListener('pointerdown', onPointer);
      window.removeEventListener('keydown', onKey, true);
    };
  }, [open, actions]);

  // The menu hangs from its button; in a narrow window (or with the button pushed right by many
  // tabs) it moves left so that all of it, Run and Cancel included, stays on screen.
  const menuRef = useRef<HTMLDivElement>(null);
  const [shift, setShift] = useState(0);
  useLayoutEffect(() => {
    if (!open) {
      setShift(0);
      return;
    }
    const place = () => {
      const el = menuRef.current;
      const anchor = ref.current;
      if (!el || !anchor) return;
      const left = anchor.getBoundingClientRect().left;
      const width = el.getBoundingClientRect().width;
      const over = left + width - (window.innerWidth - 8);
      let s = over > 0 ? -over : 0;
      if (left + s < 8) s = 8 - left; // never past the left edge either
      setShift(s);
    };
    place();
    window.addEventListener('resize', place);
    return () => window.removeEventListener('resize', place);
  }, [open]);

  // The keyboard goes to the chosen agent once the list is there.
  const listRef = useRef<HTMLDivElement>(null);
  const focused = useRef(false);
  useEffect(() => {
    if (!open) {
      focused.current = false;
      return;
    }
    if (focused.current || !agents) return;
    focused.current = true;
    const el = listRef.current?.querySelector<HTMLElement>('[aria-checked=true]') ?? listRef.current?.querySelector<HTMLElement>('[role=radio]');
    el?.focus();
  }, [open, agents]);

  const run = async () => {
    if (!choice || busy) return;
    setBusy(true);
    setError(null);
    try {
      const req = { agent: choice, ...(prompt.trim() ? { prompt } : {}), ...(remote ? { host } : {}) };
      const started = await actions.startAgent(where, req);
      if (!started) return;
      setPrompt('');
      close(false);
    } catch (err) {
      setError(errorText(err).split('\n')[0] ?? '');
    } finally {
      setBusy(false);
    }
  };

  const onListKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Enter') {
      // Enter on an agent runs it (a click only selects).
      e.preventDefault();
      void run();
      return;
    }
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    e.preventDefault();
    const enabled = list.filter(usable);
    const i = enabled.findIndex((a) => a.id === choice);
    const next = enabled[(i + (e.key === 'ArrowDown' ? 1 : enabled.length - 1)) % Math.max(1, enabled.length)];
    if (!next) return;
    setSelected(next.id);
    listRef.current?.querySelector<HTMLElement>(`[data-agent-id="${CSS.escape(next.id)}"]`)?.focus();
  };

  return (
    <div className="new-agent" ref={ref}>
      <button
        ref={button}
        className={'icon-button new-agent-button' + (open ? ' active' : '')}
        data-testid="new-agent"
        aria-label="New agent"
        aria-haspopup="dialog"
        aria-expanded={open}
        title={tooltip('newAgent', 'New agent')}
        onClick={() => (open ? close(false) : setOpen(true))}
      >
        <AgentIcon />
      </button>
      {open && (
        <div
          ref={menuRef}
          className="popover new-agent-menu"
          role="dialog"
          aria-label="New agent"
          data-testid="new-agent-menu"
          style={shift ? { left: shift } : undefined}
        >
          <div className="popover-title">Start an agent</div>
          {!agents && !error && <div className="muted">Loading agents…</div>}
          {agents && (
            <div className="agent-choices" role="radiogroup" aria-label="Agent" ref={listRef} onKeyDown={onListKey}>
              {list.map((a) => {
                const checked = a.id === choice;
                return (
                  <button
                    key={a.id}
                    className={'agent-choice' + (checked ? ' checked' : '') + (usable(a) ? '' : ' missing')}
                    role="radio"
                    aria-checked={checked}
                    aria-disabled={!usable(a)}
                    tabIndex={checked || (!choice && a === list[0]) ? 0 : -1}
                    data-testid="new-agent-item"
                    data-agent-id={a.id}
                    title={remote ? `${a.command} on ${host}` : a.found ? a.path || a.command : `${a.command} was not found on PATH`}
                    onClick={() => usable(a) && setSelected(a.id)}
                    onDoubleClick={() => usable(a) && void run()}
                  >
                    <AgentAvatar id={a.id} label={a.label} />
                    <span className="agent-choice-label">{a.label}</span>
                    <code className="agent-choice-command">{a.command}</code>
                    {!remote && !a.found && <span className="badge missing">not found</span>}
                  </button>
                );
              })}
              {list.length === 0 && <div className="muted">No agents are configured.</div>}
            </div>
          )}
          {agents && !firstFound && list.length > 0 && (
            <p className="muted small">
              None of these was found on PATH. Install one, or point its command at it in{' '}
              <button className="link-button" onClick={() => (close(false), actions.showView('settings'))}>
                Settings → Agents
              </button>
              .
            </p>
          )}
          <fieldset className="agent-where" data-testid="new-agent-where">
            <legend className="field-label">Where</legend>
            {PLACES.map((p) => (
              <label key={p.id} className="check-row">
                <input type="radio" name="new-agent-where" value={p.id} checked={where === p.id} data-testid={`new-agent-where-${p.id}`} onChange={() => setWhere(p.id)} />
                <span>{p.label}</span>
              </label>
            ))}
          </fieldset>
          {hosts && hosts.length > 0 && (
            <label className="agent-host">
              <span className="field-label">Host</span>
              <select className="text-input" data-testid="new-agent-host" value={remote ? host : ''} onChange={(e) => setHost(e.target.value)}>
                <option value="">This machine</option>
                {hosts.map((h) => (
                  <option key={h.name} value={h.name}>
                    {h.name} ({h.ssh})
                  </option>
                ))}
              </select>
            </label>
          )}
          <label className="field-label" htmlFor="new-agent-prompt">
            Prompt <span className="muted">(optional)</span>
          </label>
          <textarea
            id="new-agent-prompt"
            className="text-input"
            data-testid="new-agent-prompt"
            rows={3}
            value={prompt}
            placeholder="What should it do? Leave empty to start it without one."
            onChange={(e) => setPrompt(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                void run();
              }
            }}
          />
          {error && (
            <div className="form-error one-line" role="alert" data-testid="new-agent-error" title={error}>
              {error}
            </div>
          )}
          <div className="popover-buttons">
            <span className="muted small">Enter on an agent or Ctrl+Enter runs</span>
            <button className="button" onClick={() => close()}>
              Cancel
            </button>
            <button className="button primary" data-testid="run-agent" disabled={!choice || busy} onClick={() => void run()}>
              {busy ? 'Starting…' : 'Run'}
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
