import { describe, expect, it, vi } from 'vitest';
import script from '../../public/early-keys.js?raw';
import { defaultSocketMode, socketMode } from './socketfactory';

describe('defaultSocketMode', () => {
  it('keeps the socket on the main thread in Chromium, headless or not', () => {
    expect(defaultSocketMode('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36')).toBe('main');
    expect(defaultSocketMode('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36')).toBe('main');
  });

  it('puts it in a worker in WebKitGTK (the desktop window) and Firefox', () => {
    expect(defaultSocketMode('Mozilla/5.0 (X11; Ubuntu; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15')).toBe('worker');
    expect(defaultSocketMode('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe('worker');
  });
});

describe('the early worker (public/early-keys.js) and socketMode agree', () => {
  const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';
  const WEBKIT = 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15';
  const cases: [string, string, string | null][] = [
    [CHROME, '', null],
    [WEBKIT, '', null],
    [CHROME, '?socket=worker', null],
    [WEBKIT, '?socket=main', null],
    [CHROME, '', 'worker'],
    [WEBKIT, '', 'main'],
    [WEBKIT, '?socket=worker', 'main'],
  ];
  it.each(cases)('%s %s storage=%s', (ua, search, stored) => {
    const started: string[] = [];
    const win: Record<string, unknown> = {};
    vi.stubGlobal('navigator', { userAgent: ua });
    vi.stubGlobal('location', { search });
    vi.stubGlobal('localStorage', { getItem: (k: string) => (k === 'reprise.socket' ? stored : null) });
    vi.stubGlobal('performance', { now: () => 0 });
    vi.stubGlobal('document', { addEventListener: () => {} });
    vi.stubGlobal(
      'Worker',
      class {
        constructor(url: string) {
          started.push(url);
        }
      },
    );
    vi.stubGlobal('window', win);
    try {
      new Function(script)();
      expect(started.length === 1 ? 'worker' : 'main').toBe(socketMode());
      if (started.length === 1) expect(started[0]).toBe('./assets/socket-worker.js');
      expect(!!win.__repriseSocketWorker).toBe(started.length === 1);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
