import { useEffect, useRef } from 'react';
import { liveAgentLabel } from '../agents/banner';
import type { PaneNode } from '../api';
import { isStateName } from '../attention/attention';
import { useServices } from '../context';
import { useStore } from '../store';
import { heldLine, paneOffline, restoredLabel, terminalState } from '../terminal/describe';
import { HOLD_LIMIT } from '../stream/hold';
import { paneCwd, paneTitles } from '../terminal/titles';
import type { TerminalView } from '../terminal/TerminalView';
import { AgentPill } from './AgentPill';
import { CloseIcon, RestartIcon, SplitDownIcon, SplitRightIcon } from './icons';
import { OutcomeNotice } from './OutcomeNotice';
import { tooltip } from '../keys';
import { paneMenu } from '../menus';
import { bannerShown, ResumeBanner } from './ResumeBanner';
import { SearchBox } from './SearchBox';

export function Pane({ pane, tabActive, focused }: { pane: PaneNode; tabActive: boolean; focused: boolean }) {
  const { store, actions, views } = useServices();
  const terminal = useStore(store, (s) => s.terminals[pane.terminalId]);
  const osc = useStore(store, (s) => s.titles[pane.terminalId]);
  const cwd = paneCwd(terminal, useStore(store, (s) => s.cwds[pane.terminalId]));
  const error = useStore(store, (s) => s.paneErrors[pane.id]);
  const searching = useStore(store, (s) => s.searchPaneId === pane.id);
  const agent = useStore(store, (s) => liveAgentLabel(s.bindings[pane.terminalId]));
  const banner = useStore(store, (s) => bannerShown(s, pane.terminalId));
  const conn = useStore(store, (s) => s.conn);
  const daemon = useStore(store, (s) => s.daemon);
  const input = useStore(store, (s) => s.paneInput[pane.id]);
  const note = useStore(store, (s) => s.inputNotes[pane.id]);
  const agentInfo = useStore(store, (s) => s.agentStates[pane.terminalId]);
  const hostRef = useRef<HTMLDivElement>(null);
  const viewRef = useRef<TerminalView | null>(null);

  useEffect(() => {
    const el = hostRef.current;
    if (!el) return;
    const view = views.acquire(pane.id, pane.terminalId);
    view.placeIn(el);
    viewRef.current = view;
    return () => {
      viewRef.current = null;
      view.removeFrom(el);
    };
  }, [views, pane.id, pane.terminalId]);

  // Keyboard focus follows the host's focused pane of the visible tab.
  useEffect(() => {
    const s = store.get();
    // A menu, the palette or a tab's title editor opened by the click that focused this pane keeps the keyboard.
    if (tabActive && focused && !s.confirm && !s.menu && !s.palette && !s.renamingTabId && s.view === 'terminals' && s.searchPaneId !== pane.id) viewRef.current?.focus();
  }, [tabActive, focused, store, pane.id, pane.terminalId]);

  const title = paneTitles.title(pane.id, terminal, osc, agent, cwd);
  const offline = paneOffline(conn, daemon, terminal);
  const stale = !!input?.stale;
  const held = input?.held ?? 0;
  const refused = input?.refused ?? 0;
  const cut = input?.cut ?? 0;
  const broken = !!input?.broken;
  const lost = input?.lost ?? 0;
  const attaching = !!input?.attaching;
  const heldNotice = heldLine(offline, held, attaching);
  const real = terminalState(terminal);
  // While the pane cannot deliver input its terminal is not known to be running.
  const state = offline && (real.kind === 'running' || real.kind === 'unknown') ? { kind: 'offline', label: offline.pill } : real;
  const restored = restoredLabel(terminal);
  const ended = state.kind === 'exited' || state.kind === 'killed';

  return (
    <section
      className={'pane' + (focused ? ' focused' : '') + (offline || stale ? ' dimmed' : '')}
      data-testid="pane"
      data-pane-id={pane.id}
      data-terminal-id={pane.terminalId}
      data-state={state.kind}
      data-offline={offline ? 'true' : undefined}
      data-stale={stale ? 'true' : undefined}
      aria-label={`Terminal ${title}`}
      onPointerDownCapture={() => actions.focusPane(pane.id)}
      onContextMenu={(e) => {
        // The pane's own menu (the browser's would offer Back and Reload); inputs keep theirs.
        const t = e.target as HTMLElement;
        if (t.closest('input, textarea') && !t.closest('.xterm')) return;
        e.preventDefault();
        const sel = !!viewRef.current?.term.hasSelection();
        actions.openMenu({ x: e.clientX, y: e.clientY, label: `Pane ${title}`, items: paneMenu(actions, pane.id, sel) });
      }}
    >
      <header className="pane-header">
        <span
          className={'pane-title' + (agent ? ' agent' : '')}
          data-testid="pane-title"
          title={cwd ? `${title} — ${cwd}` : title}
        >
          {title}
        </span>
        {!offline && agentInfo && isStateName(agentInfo.state) ? (
          <AgentPill info={agentInfo} />
        ) : state.label && (
          <span className={'pill state-' + state.kind} data-testid="pane-state">
            {state.label}
          </span>
        )}
        {terminal?.host && (
          <span className="pill pane-host" data-testid="pane-host" title={`running on ${terminal.host}`}>
            {terminal.host}
          </span>
        )}
        {restored && (
          <span className="pill state-restored" data-testid="pane-restored" title={restored.detail}>
            {restored.label}
          </span>
        )}
        <span className="pane-actions">
          {ended && (
            <button
              className="icon-button"
              data-testid="restart-pane"
              aria-label="Restart: new shell in this pane"
              title="Restart: a new shell in this pane"
              onClick={() => actions.restartPane(pane.id)}
            >
              <RestartIcon />
            </button>
          )}
          <button
            className="icon-button"
            data-testid="split-right"
            aria-label="Split right"
            title={tooltip('splitRight')}
            onClick={() => actions.split('row', pane.id)}
          >
            <SplitRightIcon />
          </button>
          <button
            className="icon-button"
            data-testid="split-down"
            aria-label="Split down"
            title={tooltip('splitDown')}
            onClick={() => actions.split('column', pane.id)}
          >
            <SplitDownIcon />
          </button>
          <button
            className="icon-button"
            data-testid="close-pane"
            aria-label="Close pane"
            title={tooltip('closePane')}
            onClick={() => void actions.closePane(pane.id)}
          >
            <CloseIcon />
          </button>
        </span>
      </header>
      <div className="pane-body">
        <div className="xterm-host" ref={hostRef} />
        {(heldNotice || refused > 0 || broken || note) && (
          <div className="pane-input" role="status" data-testid="pane-input">
            {heldNotice && (
              <div
                data-testid={offline ? 'pane-offline' : held > 0 ? 'pane-held' : 'pane-attaching'}
                data-link={offline && terminal?.link ? 'down' : undefined}
              >
                {heldNotice}
              </div>
            )}
            {refused > 0 && (
              <div className="refused" data-testid="pane-refused">
                input past {HOLD_LIMIT / 1024} KiB was not sent ({refused} bytes); what came before is sent whole when back
              </div>
            )}
            {broken && (
              <div className="refused" data-testid="pane-cut">
                {lost > 0
                  ? `${lost} bytes typed did not reach the terminal, so keys of that line are missing`
                  : 'the connection dropped (or the terminal was replaced) while a line was being typed: keys of it may be missing'}
                {cut > 0 ? `, and the ${cut} bytes typed after them were not sent` : ''} — check the line before pressing Enter
              </div>
            )}
            {note && (
              <div className="refused" data-testid="pane-input-note">
                {note}
                <button className="link-button" onClick={() => store.setInputNote(pane.id, null)} aria-label="Dismiss">
                  ×
                </button>
              </div>
            )}
          </div>
        )}
        <ResumeBanner terminalId={pane.terminalId} />
        {!banner && <OutcomeNotice paneId={pane.id} terminalId={pane.terminalId} />}
        {searching && viewRef.current && <SearchBox view={viewRef.current} onClose={() => actions.closeSearch()} />}
        {error && (
          <div className="pane-error" role="alert">
            {error}
          </div>
        )}
      </div>
    </section>
  );
}
