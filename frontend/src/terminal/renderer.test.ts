import { describe, expect, it, vi } from 'vitest';
import { chooseRenderer } from './renderer';

describe('chooseRenderer', () => {
  it('uses WebGL on a GPU', () => {
    expect(chooseRenderer(null, 'ANGLE (Intel, Mesa Intel(R) UHD Graphics 620 (KBL GT2), OpenGL 4.6)')).toBe('webgl');
    expect(chooseRenderer(null, 'Apple M2')).toBe('webgl');
    expect(chooseRenderer(null, 'NVIDIA GeForce RTX 3070/PCIe/SSE2')).toBe('webgl');
  });

  it('uses the DOM renderer on a software rasterizer or without WebGL', () => {
    expect(chooseRenderer(null, 'ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)')).toBe('dom');
    expect(chooseRenderer(null, 'llvmpipe (LLVM 15.0.6, 256 bits)')).toBe('dom');
    expect(chooseRenderer(null, 'Mesa softpipe')).toBe('dom');
    expect(chooseRenderer(null, null)).toBe('dom');
  });

  it("uses the DOM renderer for WebKit's masked GPU name off a Mac (WebKitGTK on llvmpipe says 'Apple GPU')", () => {
    expect(chooseRenderer(null, 'Apple GPU', 'Linux x86_64')).toBe('dom');
    expect(chooseRenderer(null, 'Apple GPU')).toBe('dom');
    expect(chooseRenderer(null, 'WebKit WebGL', 'Linux x86_64')).toBe('dom');
    expect(chooseRenderer(null, 'Apple GPU', 'MacIntel')).toBe('webgl');
    expect(chooseRenderer('webgl', 'Apple GPU', 'Linux x86_64')).toBe('webgl');
  });

  it('follows a forced choice either way', () => {
    expect(chooseRenderer('webgl', 'llvmpipe (LLVM 15.0.6, 256 bits)')).toBe('webgl');
    expect(chooseRenderer('dom', 'Apple M2')).toBe('dom');
    expect(chooseRenderer('bogus', 'Apple M2')).toBe('webgl');
  });
});

describe('the WebGL probe waits for the start', () => {
  it('"auto" is unknown until the probe, which runs only after the start, once; a forced choice needs none', async () => {
    vi.resetModules();
    const created: string[] = [];
    vi.stubGlobal('document', {
      createElement: (tag: string) => {
        created.push(tag);
        return { getContext: () => null };
      },
    });
    try {
      const r = await import('./renderer');
      expect(r.pickRenderer('auto')).toBeNull();
      expect(r.pickRenderer('webgl')).toBe('webgl');
      expect(r.pickRenderer('dom')).toBe('dom');
      let startOver!: () => void;
      const start = new Promise<void>((res) => (startOver = res));
      const probed = r.rendererProbed(start);
      await new Promise((res) => setTimeout(res, 5));
      expect(created).toEqual([]);
      expect(r.pickRenderer('auto')).toBeNull();
      startOver();
      await probed;
      expect(created).toEqual(['canvas']);
      // No WebGL2 here: the DOM renderer; asked again, no second probe.
      expect(r.pickRenderer('auto')).toBe('dom');
      // Once probed, a later pane does not wait for anything.
      await r.rendererProbed(new Promise(() => {}));
      expect(created).toEqual(['canvas']);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
