import { describe, expect, it } from 'vitest';
import type { Terminal } from '../api';
import { paneOffline } from './describe';
import { paneCwd, PaneTitles, parseOsc7, titleFor } from './titles';
import { paneTitle } from './describe';

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

describe('titles follow cd', () => {
  it('parses OSC 7 reports, percent-decoded, any host', () => {
    expect(parseOsc7('file://myhost/etc')).toBe('/etc');
    expect(parseOsc7('file:///home/me/my%20dir')).toBe('/home/me/my dir');
    expect(parseOsc7('file://box.example/srv/%E2%9C%93')).toBe('/srv/✓');
    expect(parseOsc7('file://host/bad%zz')).toBe('/bad%zz');
    expect(parseOsc7('http://host/etc')).toBeNull();
    expect(parseOsc7('file://host')).toBeNull();
    expect(parseOsc7('')).toBeNull();
  });

  it("the shell's reported directory wins over the host's, which is the fallback", () => {
    expect(paneCwd(term, '/etc')).toBe('/etc');
    expect(paneCwd(term, undefined)).toBe('/home/me/proj');
    expect(paneCwd(undefined, undefined)).toBeUndefined();
    expect(paneTitle(term, undefined, '/etc')).toBe('etc');
    expect(paneTitle(term, undefined)).toBe('proj');
    expect(paneTitle({ ...term, cwd: '/' }, undefined)).toBe('/');
  });

  it('an OSC title and a foreground program still win over the directory', () => {
    expect(paneTitle(term, 'vim notes.md', '/etc')).toBe('vim notes.md');
    expect(paneTitle({ ...term, foreground: 'top' }, undefined, '/etc')).toBe('top');
  });

  it('a cd changes the remembered title, and a reported directory shows before the terminal is known', () => {
    const titles = new PaneTitles();
    expect(titles.title('p1', term, undefined)).toBe('proj');
    expect(titles.title('p1', { ...term, cwd: '/etc' }, undefined)).toBe('etc');
    expect(titles.title('p1', undefined, undefined, undefined, '/var/log')).toBe('log');
    expect(titles.title('p1', undefined, undefined)).toBe('log');
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
