import { describe, expect, it } from 'vitest';
import type { AskpassPrompt } from './api';
import { isConfirm, mergePending, withPrompt } from './askpass';

const p = (id: string, open = true, kind = 'secret'): AskpassPrompt => ({ id, host: 'box', prompt: `Enter passphrase ${id}`, kind, open });

describe('askpass prompts', () => {
  it('adds open prompts in order and drops closed ones', () => {
    let l = withPrompt([], p('a'));
    l = withPrompt(l, p('b'));
    expect(l.map((x) => x.id)).toEqual(['a', 'b']);
    l = withPrompt(l, p('a', false));
    expect(l.map((x) => x.id)).toEqual(['b']);
    const same = withPrompt(l, p('zzz', false));
    expect(same).toBe(l);
  });
  it('does not duplicate a prompt both listed and announced', () => {
    const l = mergePending(withPrompt([], p('a')), [p('a'), p('c')]);
    expect(l.map((x) => x.id)).toEqual(['a', 'c']);
  });
  it('tells a host-key question from a secret', () => {
    expect(isConfirm(p('a', true, 'confirm'))).toBe(true);
    expect(isConfirm(p('a'))).toBe(false);
  });
});
