// Which xterm.js renderer a terminal uses. WebGL is the fast one on a real
// GPU; on a software rasterizer (SwiftShader, llvmpipe: a VM, a remote
// desktop, Xvfb) it is the slowest by far — measured here ~1 MB/s against
// 14–25 MB/s for the DOM renderer — so "auto" picks DOM there.
//
// ?renderer=webgl|dom or localStorage "reprise.renderer" = webgl|dom forces one.
//
// WebKit (the desktop window's WebKitGTK) does not tell: it answers every WebGL context with
// the masked name "Apple GPU", on llvmpipe as on a real GPU. Off a Mac that name says nothing
// about the GPU, so "auto" takes the DOM renderer there: WebGL on llvmpipe is ~4x slower than
// the DOM renderer in the real window (measured: 0.26 of bare xterm.js against 0.79, 8 MiB
// cat under Xvfb, docs/performance.md), the DOM renderer on a real GPU is only somewhat slower.

export type RendererChoice = 'webgl' | 'dom';

const SOFTWARE = /swiftshader|llvmpipe|softpipe|software|lavapipe|microsoft basic render/i;
/** WebKit's names for a GPU it does not disclose. */
const MASKED = /^(apple gpu|webkit webgl)$/i;

/**
 * pref: a forced choice or null; glRenderer: the WebGL renderer string, null without WebGL;
 * platform: navigator.platform (a masked name is a real GPU only on a Mac).
 */
export function chooseRenderer(pref: string | null, glRenderer: string | null, platform = ''): RendererChoice {
  if (pref === 'dom' || pref === 'webgl') return pref;
  if (glRenderer === null) return 'dom';
  if (MASKED.test(glRenderer.trim())) return /^mac/i.test(platform) ? 'webgl' : 'dom';
  return SOFTWARE.test(glRenderer) ? 'dom' : 'webgl';
}

function platformName(): string {
  try {
    return globalThis.navigator?.platform ?? '';
  } catch {
    return '';
  }
}

/** The user's forced choice, if any. */
export function rendererPreference(): string | null {
  try {
    return new URLSearchParams(location.search).get('renderer') ?? localStorage.getItem('reprise.renderer');
  } catch {
    return null;
  }
}

let probed: string | null | undefined;
let probing: Promise<void> | null = null;

/**
 * The WebGL2 renderer string (unmasked where the browser allows), null when
 * WebGL2 is unavailable. Probed once per page.
 */
export function webglRendererString(): string | null {
  if (probed !== undefined) return probed;
  probed = null;
  try {
    const canvas = document.createElement('canvas');
    const gl = canvas.getContext('webgl2');
    if (gl) {
      const info = gl.getExtension('WEBGL_debug_renderer_info');
      probed = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? '');
      gl.getExtension('WEBGL_lose_context')?.loseContext();
    }
  } catch {
    probed = null;
  }
  return probed;
}

/**
 * The WebGL probe, made once, later: after `after` (the page's start: its screens drawn) and in a
 * task of its own. Creating a WebGL context is slow: 30–80 ms of the real window's start in
 * WebKitGTK (measured, docs/performance.md), on the main thread while the first pane opens. So
 * a pane whose renderer is "auto" opens on the DOM renderer, and takes WebGL, where the probe
 * says so, once this resolves — as it already did while WebGL's addon chunk was being fetched.
 */
export function rendererProbed(after?: Promise<unknown>): Promise<void> {
  if (probed !== undefined) return Promise.resolve();
  probing ??= (after ?? Promise.resolve())
    .catch(() => undefined)
    .then(
      () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            webglRendererString();
            resolve();
          }, 0),
        ),
    );
  return probing;
}

/** The renderer for a terminal on this page; null while "auto" waits for the WebGL probe (rendererProbed). */
export function pickRenderer(setting: string = 'auto'): RendererChoice | null {
  const forced = forcedRenderer(setting);
  if (forced) return forced;
  if (probed === undefined) return null;
  return chooseRenderer(null, probed, platformName());
}

/** The renderer's forced choice: ?renderer= first, then Settings → Appearance (setting), then the old localStorage key. */
function forcedRenderer(setting: string): RendererChoice | null {
  let pref = rendererPreference();
  try {
    if (new URLSearchParams(location.search).get('renderer') === null && (setting === 'dom' || setting === 'webgl')) pref = setting;
  } catch {
    // No location (tests): the setting decides.
    if (setting === 'dom' || setting === 'webgl') pref = setting;
  }
  return pref === 'dom' || pref === 'webgl' ? pref : null;
}
