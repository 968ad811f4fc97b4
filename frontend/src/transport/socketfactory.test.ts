import { describe, expect, it } from 'vitest';
import { defaultSocketMode } from './socketfactory';

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
