import { describe, expect, it } from 'vitest';
import { linkActivates, linkHint, onMac } from './links';

describe('links open only with the modifier', () => {
  it('a plain click never opens', () => {
    expect(linkActivates({ ctrlKey: false, metaKey: false }, false)).toBe(false);
    expect(linkActivates({ ctrlKey: false, metaKey: false }, true)).toBe(false);
  });
  it('Ctrl on Linux and Windows, Cmd on macOS', () => {
    expect(linkActivates({ ctrlKey: true, metaKey: false }, false)).toBe(true);
    expect(linkActivates({ ctrlKey: false, metaKey: true }, false)).toBe(false);
    expect(linkActivates({ ctrlKey: false, metaKey: true }, true)).toBe(true);
    expect(linkActivates({ ctrlKey: true, metaKey: false }, true)).toBe(false);
  });
  it('the tooltip names the modifier', () => {
    expect(linkHint(false)).toBe('Ctrl+click to open');
    expect(linkHint(true)).toBe('Cmd+click to open');
  });
  it('tells macOS from the rest', () => {
    expect(onMac({ platform: 'MacIntel' })).toBe(true);
    expect(onMac({ platform: 'Linux x86_64' })).toBe(false);
    expect(onMac({ platform: '', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' })).toBe(false);
  });
});
