import { describe, expect, it, vi } from 'vitest';
import type { HostInfo, Terminal } from './api';
import { hostMenuItems, hostState, tabHostLabel, withLiveStatus } from './hosts';
import { paneOffline } from './terminal/describe';

const host = (name: string, state = ''): HostInfo => ({ name, ssh: `me@${name}:22`, status: { name, state } });
const term = (over: Partial<Terminal> = {}): Terminal => ({ id: 't', pid: 1, cwd: '/', argv: null, status: 'running', createdAt: '', ...over });

describe('hostState', () => {
  it('says connected / disconnected / unknown', () => {
    expect(hostState({ name: 'a', state: 'up' })).toBe('connected');
    expect(hostState({ name: 'a', state: 'disconnected' })).toBe('disconnected');
    expect(hostState({ name: 'a', state: 'connecting' })).toBe('connecting');
    expect(hostState({ name: 'a', state: 'failed' })).toBe('failed');
    expect(hostState({ name: 'a', state: '' })).toBe('unknown');
    expect(hostState(undefined)).toBe('unknown');
  });
  it('prefers the newest host event over the listed status', () => {
    const got = withLiveStatus([host('a', 'up'), host('b')], { a: { name: 'a', state: 'disconnected' } });
    expect(got.map((h) => h.status.state)).toEqual(['disconnected', '']);
  });
});

describe('hostMenuItems', () => {
  it('lists this machine, each host, then manage; runs open with the name', () => {
    const open = vi.fn();
    const manage = vi.fn();
    const items = hostMenuItems([host('devbox', 'up'), host('gpu', 'disconnected')], open, manage);
    expect(items.map((i) => i.label)).toEqual(['This machine', 'devbox — me@devbox:22', 'gpu — me@gpu:22 (disconnected)', 'Manage hosts…']);
    items[2]!.run();
    expect(open).toHaveBeenCalledWith('gpu');
    items[0]!.run();
    expect(open).toHaveBeenLastCalledWith('');
    items[3]!.run();
    expect(manage).toHaveBeenCalled();
  });
  it('offers to add one when there are none', () => {
    expect(hostMenuItems([], vi.fn(), vi.fn()).map((i) => i.label)).toEqual(['This machine', 'No remote hosts yet — add one…']);
  });
});

describe('tabHostLabel', () => {
  it('names each remote host once, in pane order, and nothing for this machine', () => {
    expect(tabHostLabel([term(), undefined])).toBe('');
    expect(tabHostLabel([term({ host: 'b' }), term(), term({ host: 'a' }), term({ host: 'b' })])).toBe('b, a');
  });
});

describe('paneOffline with a remote link down', () => {
  it('is "disconnected" with the link line, never an end', () => {
    const t = term({ host: 'devbox', link: 'disconnected from devbox — reconnecting' });
    expect(paneOffline('open', { state: 'up' }, t)).toEqual({ pill: 'disconnected', line: 'disconnected from devbox — reconnecting · input paused' });
    expect(paneOffline('open', { state: 'up' }, { ...t, link: '' })).toBeNull();
    // An ended terminal's pane shows its end, not the link.
    expect(paneOffline('open', { state: 'up' }, { ...t, status: 'exited' })).toBeNull();
  });
});
