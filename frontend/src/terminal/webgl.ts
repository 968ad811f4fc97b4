// The WebGL renderer for visible panes only. Chromium keeps at most 16 live WebGL contexts in a
// page and drops the oldest past that, so a window with many panes (tabs of splits) would lose
// the contexts of panes the user is looking at. A pane's WebGL addon is created when the pane
// is shown and disposed as soon as it is hidden (another tab): xterm.js then falls back to its
// DOM renderer, which draws nothing while the element is hidden (xterm pauses rendering for an
// element out of view) and keeps the buffer, so output written meanwhile is all there when the
// pane is shown again. A lost context (the GPU reset, or the limit anyway) puts that pane on
// the DOM renderer for the rest of its life.

type WebglModule = typeof import('@xterm/addon-webgl');
let webglModule: Promise<WebglModule> | null = null;
let webglCtor: WebglModule['WebglAddon'] | null = null;

/**
 * Fetches @xterm/addon-webgl (a chunk of its own, ~110 KB: the page's first script need not
 * parse it, and a page on the DOM renderer never does), once for the page.
 */
export function loadWebglAddon(): Promise<WebglModule> {
  webglModule ??= import('@xterm/addon-webgl').then((m) => {
    webglCtor = m.WebglAddon;
    return m;
  });
  return webglModule;
}

/** The WebglAddon class once loadWebglAddon has resolved, else null. */
export function webglAddonLoaded(): WebglModule['WebglAddon'] | null {
  return webglCtor;
}

/** What this needs of @xterm/addon-webgl's WebglAddon. */
export interface WebglAddonLike {
  onContextLoss(cb: () => void): unknown;
  dispose(): void;
}

export class WebglLifecycle<A extends WebglAddonLike = WebglAddonLike> {
  private addon: A | null = null;
  private visible = false;
  private lost = false;
  private disposed = false;

  /**
   * create makes an addon; load gives it to the terminal (may throw: no WebGL here). changed is
   * called whenever the renderer in use changes (WebGL ↔ DOM).
   */
  constructor(
    private wanted: boolean,
    private readonly create: () => A,
    private readonly load: (addon: A) => void,
    private readonly changed: () => void = () => {},
  ) {}

  /** The addon in use, or null (the DOM renderer). */
  get current(): A | null {
    return this.addon;
  }

  /** True once this pane is on the DOM renderer for good (a lost context, or WebGL failed). */
  get fellBack(): boolean {
    return this.lost;
  }

  /** Settings → Appearance asked for WebGL (auto on a GPU, or forced) or for the DOM renderer. */
  setWanted(wanted: boolean): void {
    if (this.disposed || this.wanted === wanted) return;
    this.wanted = wanted;
    if (!wanted) this.release();
    else if (this.visible) this.acquire();
  }

  /** The pane was shown (its element has a size on screen) or hidden. */
  setVisible(visible: boolean): void {
    if (this.disposed || this.visible === visible) return;
    this.visible = visible;
    if (visible) this.acquire();
    else this.release();
  }

  dispose(): void {
    this.disposed = true;
    this.release();
  }

  private acquire(): void {
    if (!this.wanted || this.lost || this.addon) return;
    let addon: A | undefined;
    try {
      addon = this.create();
      addon.onContextLoss(() => {
        if (this.addon !== addon) return;
        this.lost = true;
        this.release();
      });
      this.load(addon);
    } catch (err) {
      console.info('reprise: WebGL unavailable, using the DOM renderer', err);
      this.lost = true;
      try {
        addon?.dispose();
      } catch {
        // it never loaded
      }
      return;
    }
    this.addon = addon;
    this.changed();
  }

  private release(): void {
    const a = this.addon;
    if (!a) return;
    this.addon = null;
    a.dispose();
    this.changed();
  }
}
