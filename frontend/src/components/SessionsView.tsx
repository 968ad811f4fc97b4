import { useEffect, useRef, useState } from 'react';
import { errorText } from '../actions';
import { outcomeTitle, relativeTime, sessionEnd, shortTime } from '../agents/format';
import type { Session } from '../api';
import { useServices } from '../context';
import { basename } from '../terminal/describe';
import { activeTab, findPaneByTerminal, focusedPane } from '../layout/layout';
import { useStore } from '../store';
import { AgentAvatar } from './AgentAvatar';
import { CloseIcon } from './icons';

const QUERY_DEBOUNCE_MS = 250;
const CLOCK_MS = 30_000;

const sessionKey = (s: Session) => `${s.agentId}/${s.sessionId}`;


/** Every agent session ever seen, newest first, searchable; resumable ones can be resumed here or in a new tab. */
export function SessionsView() {
  const { store, actions } = useServices();
  // Opened for one session (e.g. "Open Sessions" of a failed resume): start with its search.
  const [query, setQuery] = useState(() => store.get().sessionsQuery);
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [rowError, setRowError] = useState<{ key: string; message: string } | null>(null);
  const [busyKey, setBusyKey] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  // A binding change (an agent started, ended, was resumed) changes the list too.
  const bindings = useStore(store, (s) => s.bindings);
  const layout = useStore(store, (s) => s.layout);
  const hasFocusedPane = useStore(store, (s) => {
    const tab = s.layout && activeTab(s.layout);
    return !!(tab && focusedPane(tab));
  });
  const input = useRef<HTMLInputElement>(null);
  const seq = useRef(0);

  const [reload, setReload] = useState(0);

  useEffect(() => {
    input.current?.focus();
    store.set('sessionsQuery', '');
    const t = setInterval(() => setNow(Date.now()), CLOCK_MS);
    return () => clearInterval(t);
  }, [store]);

  useEffect(() => {
    const mine = ++seq.current;
    const t = setTimeout(
      () => {
        actions.listSessions(query.trim()).then(
          (list) => {
            if (mine !== seq.current) return;
            setSessions(list);
            setError(null);
            setNow(Date.now());
          },
          (err: unknown) => mine === seq.current && setError(errorText(err)),
        );
      },
      sessions === null ? 0 : QUERY_DEBOUNCE_MS,
    );
    return () => clearTimeout(t);
    // sessions is read only to skip the delay of the first load.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a new list must not start another load
  }, [actions, query, bindings, reload]);

  const forget = async (s: Session) => {
    const key = sessionKey(s);
    setRowError(null);
    setBusyKey(key);
    try {
      if (await actions.forgetSession(s)) {
        setSessions((list) => list && list.filter((x) => sessionKey(x) !== key));
        setReload((n) => n + 1);
      }
    } catch (err) {
      setRowError({ key, message: errorText(err) });
    } finally {
      setBusyKey(null);
    }
  };

  const resume = async (s: Session, where: 'here' | 'newTab') => {
    const key = sessionKey(s);
    setBusyKey(key);
    setRowError(null);
    try {
      await actions.resumeSession(s, where);
    } catch (err) {
      setRowError({ key, message: errorText(err) });
      // The host recorded the failure as the session's last outcome: show it.
      setReload((n) => n + 1);
    } finally {
      setBusyKey(null);
    }
  };

  const show = (terminalId: string) => {
    const loc = layout && findPaneByTerminal(layout, terminalId);
    if (!loc) return;
    actions.showTerminals();
    actions.focusPane(loc.pane.id);
  };

  return (
    <div className="workspace-view sessions-view" data-testid="sessions-view" role="region" aria-label="Agent sessions" tabIndex={-1}>
      <header className="view-header">
        <h1>Agent sessions</h1>
        <input
          ref={input}
          type="search"
          className="text-input sessions-query"
          data-testid="sessions-query"
          aria-label="Search sessions"
          placeholder="Search by prompt, agent, directory, session id…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button className="icon-button" data-testid="close-sessions" aria-label="Close sessions" title="Close (Esc)" onClick={() => actions.showTerminals()}>
          <CloseIcon />
        </button>
      </header>
      {error && (
        <div className="form-error view-error" role="alert">
          Couldn't list sessions: {error}
        </div>
      )}
      <div className="sessions-scroll">
        <table className="sessions-table">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Directory</th>
              <th scope="col">First prompt</th>
              <th scope="col">Last activity</th>
              <th scope="col">State</th>
              <th scope="col">Last outcome</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(sessions ?? []).map((s) => {
              const key = sessionKey(s);
              const end = sessionEnd(s);
              const livePane = s.live && s.terminalId && layout ? findPaneByTerminal(layout, s.terminalId) : undefined;
              const err = rowError?.key === key ? rowError.message : null;
              return (
                <tr key={key} data-testid="session-row" data-session-id={s.sessionId} data-agent-id={s.agentId} className={s.candidate ? 'candidate' : undefined}>
                  <td className="session-agent-cell">
                    <span className="session-agent">
                      <AgentAvatar id={s.agentId} label={s.agentLabel || s.agentId} />
                      <span>
                        <span className="session-agent-label">{s.agentLabel || s.agentId}</span>
                        <code className="session-id muted" title={s.sessionId}>
                          {s.sessionId}
                        </code>
                      </span>
                    </span>
                  </td>
                  <td className="session-cwd" title={s.host ? `${s.cwd} on ${s.host}` : s.cwd}>
                    {s.host && (
                      <span className="pill pane-host" data-testid="session-host" title={`the conversation lives on ${s.host}; its resume runs there`}>
                        {s.host}
                      </span>
                    )}
                    <span className="cwd-base">{basename(s.cwd) || s.cwd}</span>
                    <span className="cwd-full muted">{s.cwd}</span>
                  </td>
                  <td
                    className="session-prompt"
                    data-testid="session-prompt"
                    title={
                      (s.firstPrompt ? `${s.firstPrompt}\n` : '') +
                      (s.firstPromptAt ? `First prompted ${new Date(s.firstPromptAt).toLocaleString()}` : 'Never prompted')
                    }
                  >
                    {s.firstPrompt && <span className="session-prompt-text">{s.firstPrompt}</span>}
                    <span className={s.firstPrompt ? 'session-prompt-time muted' : undefined}>
                      {s.firstPromptAt ? shortTime(s.firstPromptAt) : <span className="muted">not prompted</span>}
                    </span>
                  </td>
                  <td className="session-activity" title={new Date(s.lastActivityAt).toLocaleString()}>
                    {relativeTime(s.lastActivityAt, now)}
                  </td>
                  <td className="session-state">
                    <span className={'pill end-' + end} data-testid="session-end">
                      {end}
                    </span>
                  </td>
                  <td className={'session-outcome' + (s.lastOutcome ? '' : ' empty')}>
                    {s.lastOutcome ? (
                      <>
                        <span className={'pill outcome-' + s.lastOutcome} data-testid="session-outcome" title={outcomeTitle(s)}>
                          {s.lastOutcome}
                        </span>
                        {s.lastOutcome === 'failed' && s.lastOutcomeDetail && (
                          <span className="session-outcome-detail" data-testid="session-outcome-detail" title={outcomeTitle(s)}>
                            {s.lastOutcomeDetail}
                          </span>
                        )}
                      </>
                    ) : (
                      <span className="muted" aria-label="no resume yet">
                        —
                      </span>
                    )}
                  </td>
                  <td className="session-actions">
                    {livePane && (
                      <button className="button small" data-testid="show-session" onClick={() => show(s.terminalId!)}>
                        Show
                      </button>
                    )}
                    {s.resumable && !s.live && (
                      <>
                        <button
                          className="button small"
                          data-testid="resume-here"
                          disabled={busyKey !== null || !hasFocusedPane}
                          title="Resume in the focused pane (replaces its terminal)"
                          onClick={() => void resume(s, 'here')}
                        >
                          Resume here
                        </button>
                        <button
                          className="button small"
                          data-testid="resume-new-tab"
                          disabled={busyKey !== null}
                          onClick={() => void resume(s, 'newTab')}
                        >
                          Resume in new tab
                        </button>
                      </>
                    )}
                    {!s.live && (
                      <button
                        className="button small danger-outline"
                        data-testid="forget-session"
                        disabled={busyKey !== null}
                        aria-label={`Forget ${s.agentLabel || s.agentId} session ${s.sessionId}`}
                        title="Delete this session's history and saved output"
                        onClick={() => void forget(s)}
                      >
                        Forget
                      </button>
                    )}
                    {err && (
                      <div className="field-error one-line" role="alert" title={err}>
                        {err}
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {sessions && sessions.length === 0 && (
          <div className="empty-note" data-testid="sessions-empty">
            {query.trim() ? `No sessions match “${query.trim()}”.` : 'No agent sessions yet. Start one with the New agent button.'}
          </div>
        )}
        {!sessions && !error && <div className="empty-note">Loading…</div>}
      </div>
    </div>
  );
}
