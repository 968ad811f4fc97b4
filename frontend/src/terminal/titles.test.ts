import { describe, expect, it } from 'vitest';
import type { Terminal } from '../api';
import { paneOffline } from './describe';
import { PaneTitles, titleFor } from './titles';

const term: Terminal = { id: 't1', pid: 10, cwd: '/home/me/proj', argv: ['/bin/bash'], status: 'running', createdAt: '' };

describe('pane titles across a change of terminal', () => {
  it('keeps the last title while the new terminal is not known yet', () => {
    const titles = new PaneTitles();
    expect(titles.title('p1', term, 'work')).toBe('work');
    // A daemon recovery: the pane's new terminal id is known, its Terminal not yet.
    expect(titles.title('p1', undefined, undefined)).toBe('work');
    expect(titles.title('p1', { ...term, id: 't2' }, undefined)).toBe('proj');
    expect(titles.title('p2', undefined, undefined)).toBe('terminal');
  });

  it('an agent label and an OSC title win', () => {
    expect(titleFor('old', undefined, undefined, 'Claude')).toBe('Claude');
    expect(titleFor('old', undefined, 'vim')).toBe('vim');
  });
});

describe('paneOffline', () => {
  it('says why input is paused, and nothing when it is not', () => {
    expect(paneOffline('open', { state: 'up' }, term)).toBeNull();
    expect(paneOffline('open', null, term)).toBeNull();
    expect(paneOffline('reconnecting', { state: 'up' }, term)).toEqual({ pill: 'disconnected', line: 'input paused — reconnecting' });
    expect(paneOffline('open', { state: 'restarting' }, term)?.line).toBe('input paused — the pty daemon is restarting');
    expect(paneOffline('open', { state: 'failed' }, term)?.pill).toBe('daemon down');
    expect(paneOffline('open', { state: 'up' }, { ...term, status: 'lost' })?.pill).toBe('restoring');
    expect(paneOffline('open', { state: 'up' }, { ...term, status: 'exited' })).toBeNull();
  });
});
