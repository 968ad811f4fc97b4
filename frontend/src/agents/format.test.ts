import { describe, expect, it } from 'vitest';
import type { Agent } from '../api';
import { blankAgent, editedFields, fromDraft, serverErrorField, toDraft } from './form';
import { formatEnv, initials, outcomeTitle, parseEnv, relativeTime, runnableFirst, sessionEnd } from './format';

describe('format', () => {
  it('says how long ago', () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    expect(relativeTime('2026-11-29T11:59:50Z', now)).toBe('just now');
    expect(relativeTime('2026-11-29T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-11-29T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-11-27T12:00:00Z', now)).toBe('2 d ago');
    expect(relativeTime(undefined, now)).toBe('');
    expect(relativeTime('garbage', now)).toBe('');
  });

  it('names how a session ended', () => {
    expect(sessionEnd({ live: true, endReason: '' })).toBe('live');
    expect(sessionEnd({ live: false, endReason: 'terminal-exited' })).toBe('interrupted');
    expect(sessionEnd({ live: false, endReason: 'detached' })).toBe('exited');
    expect(sessionEnd({ live: false, endReason: 'disposed' })).toBe('closed');
    expect(sessionEnd({ live: false, endReason: 'resumed' })).toBe('resumed');
  });

  it('reads and writes env lines', () => {
    expect(parseEnv('A=1\n\nB=x=y\r\n C = z')).toEqual({ ok: true, env: { A: '1', B: 'x=y', C: ' z' } });
    expect(parseEnv('A=1\nnope')).toEqual({ ok: false, error: 'line 2: expected KEY=VALUE' });
    expect(parseEnv('=1')).toEqual({ ok: false, error: 'line 1: expected KEY=VALUE' });
    expect(parseEnv('A=1\nA=2')).toEqual({ ok: false, error: 'line 2: A is set twice' });
    expect(formatEnv({ B: '2', A: '1' })).toBe('A=1\nB=2');
    expect(formatEnv(null)).toBe('');
  });

  it('makes avatars and puts runnable agents first', () => {
    expect(initials('Claude Code')).toBe('CC');
    expect(initials('codex')).toBe('C');
    expect(initials('cursor-agent')).toBe('CA');
    expect(initials('  ')).toBe('?');
    const a = (id: string, found: boolean) => ({ ...blankAgent(), id, found });
    expect(runnableFirst([a('x', false), a('y', true), a('z', false), a('w', true)]).map((x) => x.id)).toEqual(['y', 'w', 'x', 'z']);
  });
});

describe('agent form', () => {
  const codex: Agent = {
    ...blankAgent(),
    id: 'codex',
    label: 'Codex',
    command: 'codex',
    resumeArgs: ['resume'],
    env: { FOO: 'bar baz' },
    tracking: 'hooks',
    builtin: true,
    found: true,
  };

  it('round-trips an agent through its text fields', () => {
    const d = toDraft(codex);
    expect(d.resumeArgs).toBe('resume');
    expect(d.env).toBe('FOO=bar baz');
    const back = fromDraft(codex, d);
    expect(back.agent && editedFields(back.agent, codex)).toBe(false);
  });

  it('parses shell words and keeps what the form does not show', () => {
    const r = fromDraft(codex, { ...toDraft(codex), resumeArgs: 'resume --all', args: `-c 'model="o3"'` });
    expect(r.errors).toBeNull();
    expect(r.agent?.resumeArgs).toEqual(['resume', '--all']);
    expect(r.agent?.args).toEqual(['-c', 'model="o3"']);
    expect(r.agent?.tracking).toBe('hooks');
    expect(r.agent && editedFields(r.agent, codex)).toBe(true);
  });

  it('refuses a draft whose words do not parse', () => {
    const r = fromDraft(codex, { ...toDraft(codex), resumeArgs: '"unterminated', env: 'oops' });
    expect(r.agent).toBeNull();
    expect(r.errors).toEqual({ resumeArgs: 'unterminated double quote', env: 'line 1: expected KEY=VALUE' });
  });

  it('treats null and empty lists alike', () => {
    expect(editedFields({ ...codex, args: null }, { ...codex, args: [] })).toBe(false);
  });
});

describe('serverErrorField', () => {
  it('finds the field a host validation error is about', () => {
    expect(serverErrorField('agent gemini: command "gem ini" has white space, a control character or invalid UTF-8')).toBe('command');
    expect(serverErrorField('agent x: label is empty')).toBe('label');
    expect(serverErrorField('agent x: prompt transport "pipe" is neither "argv" nor "stdin"')).toBe('promptTransport');
    expect(serverErrorField('agent x: prompt args: "\\x01" has a control character or invalid UTF-8')).toBe('promptArgs');
    expect(serverErrorField('agent x: resume args: "\\x01" has a control character or invalid UTF-8')).toBe('resumeArgs');
    expect(serverErrorField('agent x: args: "\\x01" has a control character or invalid UTF-8')).toBe('args');
    expect(serverErrorField('agent x: env name "1A" must match [A-Za-z_][A-Za-z0-9_]*')).toBe('env');
    expect(serverErrorField('agent id "Bad" must be 1-32 of a-z, 0-9 and -, not starting with -')).toBe('id');
    expect(serverErrorField('agent x: session id kind "z" is neither "uuid" nor "any"')).toBeNull();
    expect(serverErrorField('connection lost')).toBeNull();
  });
});

describe('outcomeTitle', () => {
  it("says what a session's last outcome means, and why when the host said", () => {
    expect(outcomeTitle({ lastOutcome: 'failed', lastOutcomeDetail: "couldn't resume Claude Code: No such directory: /w" })).toBe(
      "The resume failed: couldn't resume Claude Code: No such directory: /w",
    );
    expect(outcomeTitle({ lastOutcome: 'resumed' })).toBe('The agent confirmed it resumed this session');
    expect(outcomeTitle({ lastOutcome: 'odd' })).toBe('odd');
  });
});
