import { cloneElement, useEffect, useRef, useState, type ReactElement, type ReactNode } from 'react';
import { errorText } from '../actions';
import { editedFields, fromDraft, serverErrorField, toDraft, type AgentDraft, type DraftErrors } from '../agents/form';
import type { Agent } from '../api';
import { useServices } from '../context';
import { AgentAvatar } from './AgentAvatar';

const SAVED_MS = 2500;

/**
 * Drafts that could not be saved when their form closed (a field that does not parse, a new
 * agent not created yet), by agent id: the form opens on them again, with their error, instead
 * of dropping what was typed. For the page's life only.
 */
const unsavedDrafts = new Map<string, AgentDraft>();
const NEW_DRAFT = '\0new';

/**
 * The detail form of one agent. Saves on blur (when something changed and every field
 * parses) and with Save; parse errors and the host's validation error show inline.
 * isNew: a custom agent not saved yet (Save only, with an id field).
 */
export function AgentForm({ agent, isNew = false, onCreated }: { agent: Agent; isNew?: boolean; onCreated?: (a: Agent) => void }) {
  const { actions } = useServices();
  const draftKey = isNew ? NEW_DRAFT : agent.id;
  const [draft, setDraft] = useState<AgentDraft>(() => {
    const kept = unsavedDrafts.get(draftKey);
    unsavedDrafts.delete(draftKey);
    return kept ?? toDraft(agent);
  });
  const [serverError, setServerError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [saving, setSaving] = useState(false);
  const [hooksBusy, setHooksBusy] = useState(false);
  const baseline = useRef<Agent>(agent);
  const draftRef = useRef(draft);
  draftRef.current = draft;
  const chain = useRef<Promise<unknown>>(Promise.resolve());
  const savedTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const mounted = useRef(true);
  const deleted = useRef(false);

  const parsed = fromDraft(baseline.current, draft);
  const errors: DraftErrors = parsed.errors ?? {};
  const dirty = parsed.agent ? editedFields(parsed.agent, baseline.current) : true;

  // The host changed the agent (hooks installed, another window saved): follow it unless
  // the user has edits of their own.
  useEffect(() => {
    if (agent === baseline.current) return;
    const mine = fromDraft(baseline.current, draftRef.current);
    const untouched = mine.agent !== null && !editedFields(mine.agent, baseline.current);
    baseline.current = agent;
    if (untouched) setDraft(toDraft(agent));
  }, [agent]);

  const flashSaved = () => {
    setSaved(true);
    if (savedTimer.current) clearTimeout(savedTimer.current);
    savedTimer.current = setTimeout(() => mounted.current && setSaved(false), SAVED_MS);
  };

  /** Saves the draft if it parses and differs from what the host has (explicit: even if it does not). */
  const save = (explicit: boolean): Promise<void> => {
    const run = async () => {
      const p = fromDraft(baseline.current, draftRef.current);
      if (!p.agent || deleted.current) return;
      if (isNew && !explicit) return;
      if (!explicit && !editedFields(p.agent, baseline.current)) {
        // Back to what the host has (and accepted): an error about another value is stale.
        if (mounted.current) setServerError(null);
        return;
      }
      if (mounted.current) setSaving(true);
      try {
        const s = await actions.saveAgent(p.agent);
        baseline.current = s;
        if (!mounted.current) return;
        setServerError(null);
        flashSaved();
        if (isNew) onCreated?.(s);
      } catch (err) {
        if (mounted.current) setServerError(errorText(err));
        else {
          // Refused after the form closed: kept for its next opening, like a draft that does not parse.
          unsavedDrafts.set(draftKey, draftRef.current);
          actions.notice(`Save ${p.agent.label || p.agent.id}: ${errorText(err)}`);
        }
      } finally {
        if (mounted.current) setSaving(false);
      }
    };
    const next = chain.current.then(run, run);
    chain.current = next;
    return next;
  };

  /** On leaving: a draft save(false) cannot save is kept for the next opening, and the user is told. */
  const keepUnsaved = () => {
    const d = draftRef.current;
    const p = fromDraft(baseline.current, d);
    if (deleted.current || JSON.stringify(d) === JSON.stringify(toDraft(baseline.current))) return;
    if (p.agent && !isNew) return; // save(false) saves it
    unsavedDrafts.set(draftKey, d);
    const why = p.errors ? Object.values(p.errors)[0] : 'not created yet';
    actions.notice(`${d.label.trim() || agent.label || d.id.trim() || 'New agent'} not saved (${why}); your edit is kept in Settings → Agents.`);
  };

  // Leaving the form (another agent, Esc) keeps what was typed.
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      if (savedTimer.current) clearTimeout(savedTimer.current);
      keepUnsaved();
      void save(false);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on unmount only; save reads the draft and baseline through refs
  }, []);

  const set = (k: keyof AgentDraft) => (value: string) => {
    setDraft((d) => ({ ...d, [k]: value }));
    setSaved(false);
  };

  const restore = async () => {
    try {
      const a = await actions.resetAgent(agent.id);
      baseline.current = a;
      setDraft(toDraft(a));
      setServerError(null);
      flashSaved();
    } catch (err) {
      setServerError(errorText(err));
    }
  };

  const hooks = async (install: boolean) => {
    setHooksBusy(true);
    try {
      await actions.setHooks(agent.id, install);
      setServerError(null);
    } catch (err) {
      setServerError(errorText(err));
    } finally {
      setHooksBusy(false);
    }
  };

  const remove = async () => {
    const ok = await actions.confirm(`Delete the agent ${agent.label || agent.id}? Its sessions stay in the history.`, 'Delete', 'Delete agent?');
    if (!ok) return;
    deleted.current = true;
    try {
      await actions.deleteAgent(agent.id);
    } catch (err) {
      deleted.current = false;
      setServerError(errorText(err));
    }
  };

  const onBlur = () => void save(false);
  // The host's validation error goes under the field it is about, else above the buttons.
  const serverField = serverError ? serverErrorField(serverError) : null;
  const hostError = (k: keyof AgentDraft) => (serverField === k ? serverError : null);
  const title = draft.label || agent.label || (isNew ? 'New agent' : agent.id);

  return (
    <form
      className="agent-form"
      data-testid="agent-form"
      data-agent-id={agent.id}
      aria-label={`${title} settings`}
      onSubmit={(e) => {
        e.preventDefault();
        void save(true);
      }}
    >
      <header className="agent-form-header">
        <AgentAvatar id={agent.id || draft.id || '?'} label={title} size={32} />
        <div className="agent-form-title">
          <h2 title={title}>{title}</h2>
          <div className="muted small">
            {isNew ? 'Custom agent' : agent.builtin ? `Built-in · ${agent.id}` : `Custom · ${agent.id}`}
            {!isNew && (agent.found ? ` · ${agent.path || agent.command}` : ` · ${agent.command} was not found on PATH`)}
          </div>
        </div>
        <span className="saved-slot">
          <span className={'pill saved-pill' + (saved ? ' shown' : '')} role="status" aria-live="polite" data-testid="saved-status">
            {saved ? 'Saved' : saving ? 'Saving…' : ''}
          </span>
        </span>
      </header>

      {isNew && (
        <Field
          id="agent-id"
          label="ID"
          hint={
            <>
              Lower-case letters, digits and -, as in <code>reprise agents create --agent ID</code>.
            </>
          }
          hostError={hostError('id')}
        >
          <input
            id="agent-id"
            className="text-input mono"
            data-testid="agent-id-input"
            value={draft.id}
            onChange={(e) => set('id')(e.target.value)}
            spellCheck={false}
          />
        </Field>
      )}
      <Field id="agent-label" label="Label" hostError={hostError('label')}>
        <input
          id="agent-label"
          className="text-input"
          data-testid="label-input"
          value={draft.label}
          onChange={(e) => set('label')(e.target.value)}
          onBlur={onBlur}
        />
      </Field>
      <Field id="agent-command" label="Command" hint="The program to run, by name on PATH or by full path." hostError={hostError('command')}>
        <input
          id="agent-command"
          className="text-input mono"
          data-testid="command-input"
          value={draft.command}
          onChange={(e) => set('command')(e.target.value)}
          onBlur={onBlur}
          spellCheck={false}
        />
      </Field>
      <Field
        id="agent-args"
        label="Args"
        hint="Always passed after the command. Shell words: quotes allowed, nothing is expanded."
        error={errors.args}
        errorTestId="args-error"
        hostError={hostError('args')}
      >
        <input
          id="agent-args"
          className="text-input mono"
          data-testid="args-input"
          value={draft.args}
          onChange={(e) => set('args')(e.target.value)}
          onBlur={onBlur}
          spellCheck={false}
        />
      </Field>
      <Field
        id="agent-prompt-args"
        label="Prompt args"
        hint={
          <>
            Put before the prompt when one is given, e.g. <code>-p</code>.
          </>
        }
        error={errors.promptArgs}
        errorTestId="prompt-args-error"
        hostError={hostError('promptArgs')}
      >
        <input
          id="agent-prompt-args"
          className="text-input mono"
          data-testid="prompt-args-input"
          value={draft.promptArgs}
          onChange={(e) => set('promptArgs')(e.target.value)}
          onBlur={onBlur}
          spellCheck={false}
        />
      </Field>
      <Field id="agent-prompt-transport" label="Prompt transport" hint="How the prompt reaches the agent." hostError={hostError('promptTransport')}>
        <select
          id="agent-prompt-transport"
          className="text-input select"
          data-testid="prompt-transport-input"
          value={draft.promptTransport}
          onChange={(e) => set('promptTransport')(e.target.value)}
          onBlur={onBlur}
        >
          <option value="argv">argv (as an argument)</option>
          <option value="stdin">stdin</option>
        </select>
      </Field>
      <Field
        id="agent-resume-args"
        label="Resume args"
        hint={
          <>
            The session id is appended after these, e.g. <code>--resume</code>. Leave empty if the agent can't resume by id.
          </>
        }
        error={errors.resumeArgs}
        errorTestId="resume-args-error"
        hostError={hostError('resumeArgs')}
      >
        <input
          id="agent-resume-args"
          className="text-input mono"
          data-testid="resume-args-input"
          value={draft.resumeArgs}
          onChange={(e) => set('resumeArgs')(e.target.value)}
          onBlur={onBlur}
          spellCheck={false}
          placeholder="(cannot resume by id)"
        />
      </Field>
      <Field
        id="agent-env"
        label="Env"
        hint="One KEY=VALUE per line, added to the agent's environment."
        error={errors.env}
        errorTestId="env-error"
        hostError={hostError('env')}
      >
        <textarea
          id="agent-env"
          className="text-input mono"
          data-testid="env-input"
          rows={3}
          value={draft.env}
          onChange={(e) => set('env')(e.target.value)}
          onBlur={onBlur}
          spellCheck={false}
        />
      </Field>

      {serverError && !serverField && (
        <div className="form-error" role="alert" data-testid="agent-error">
          {serverError}
        </div>
      )}

      <div className="form-buttons">
        <button type="submit" className="button primary" data-testid="save-agent" disabled={saving || !parsed.agent}>
          {isNew ? 'Create agent' : 'Save'}
        </button>
        {!isNew && agent.builtin && agent.edited && (
          <button type="button" className="button" data-testid="restore-default" onClick={() => void restore()}>
            Restore default
          </button>
        )}
        {!isNew && !agent.builtin && (
          <button type="button" className="button danger-outline" data-testid="delete-agent" onClick={() => void remove()}>
            Delete agent
          </button>
        )}
        {dirty && !isNew && parsed.agent && <span className="muted small">Unsaved changes</span>}
      </div>

      {!isNew && <HookSection agent={agent} busy={hooksBusy} onSet={(install) => void hooks(install)} />}
    </form>
  );
}

function Field({
  id,
  label,
  hint,
  error,
  errorTestId,
  hostError,
  children,
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  /** This field's own parse error. */
  error?: string;
  errorTestId?: string;
  /** The host's validation error about this field. */
  hostError?: string | null;
  /** The one input, select or textarea (it gets aria-invalid and aria-describedby). */
  children: ReactElement<{ 'aria-invalid'?: boolean; 'aria-describedby'?: string }>;
}) {
  const problem = error || hostError;
  const described = [hint ? `${id}-hint` : '', problem ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const input = cloneElement(children, { 'aria-invalid': problem ? true : undefined, 'aria-describedby': described });
  return (
    <div className={'field' + (problem ? ' invalid' : '')}>
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {hint && (
        <div className="field-hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {input}
      {error && (
        <div className="field-error" role="alert" data-testid={errorTestId} id={`${id}-error`}>
          {error}
        </div>
      )}
      {hostError && !error && (
        <div className="field-error" role="alert" data-testid="agent-error" id={`${id}-error`}>
          {hostError}
        </div>
      )}
    </div>
  );
}

/** Whether Reprise can follow this agent's sessions, and the hooks that make it. */
function HookSection({ agent, busy, onSet }: { agent: Agent; busy: boolean; onSet: (install: boolean) => void }) {
  const h = agent.hooks;
  let body: ReactNode;
  if (h?.supported) {
    body = (
      <>
        <div className="hook-row">
          <span className={'pill ' + (h.installed ? 'state-running' : 'state-exited')} data-testid="hooks-status">
            {h.installed ? 'Installed' : 'Not installed'}
          </span>
          {h.path && <code className="muted small">{h.path}</code>}
          {h.installed ? (
            <button type="button" className="button small" data-testid="remove-hooks" disabled={busy} onClick={() => onSet(false)}>
              Remove
            </button>
          ) : (
            <button type="button" className="button small" data-testid="install-hooks" disabled={busy} onClick={() => onSet(true)}>
              Install
            </button>
          )}
        </div>
        {h.note && <div className="field-hint">{h.note}</div>}
      </>
    );
  } else if (agent.tracking === 'plugin') {
    body = (
      <div className="field-hint" data-testid="hooks-status">
        session tracking not available yet
      </div>
    );
  } else {
    body = (
      <div className="field-hint" data-testid="hooks-status">
        {h?.note || "Reprise can't follow this agent's sessions, so it can't offer to resume them."}
      </div>
    );
  }
  return (
    <section className="hook-section" aria-label="Session tracking">
      <h3 className="field-label">Session tracking (hooks)</h3>
      {agent.hooks?.supported && (
        <div className="field-hint">Hooks tell Reprise the agent's session id, so an interrupted conversation can be resumed.</div>
      )}
      {body}
    </section>
  );
}
