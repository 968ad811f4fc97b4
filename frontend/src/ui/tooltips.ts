// The page's tooltips. Native title tooltips linger after their element is
// gone (WebKitGTK keeps one up until the pointer moves: click a tab's × and
// "Close tab" floats over the next tab). So while the pointer is over an
// element with a title, the title is held here instead of on the element,
// and a tooltip of our own shows it; that one goes the moment its element
// leaves the document, is pressed, or the pointer leaves. The title comes
// back when the pointer leaves, for assistive tech and tests.

const SHOW_DELAY_MS = 450;

export interface TooltipsHandle {
  /** The anchor whose tooltip is up (or pending), for tests. */
  anchor(): HTMLElement | null;
  dispose(): void;
}

export function installTooltips(doc: Document = document): TooltipsHandle {
  let anchor: HTMLElement | null = null;
  let text = '';
  let tip: HTMLDivElement | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let suppressed = false;

  const hideTip = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    tip?.remove();
    tip = null;
  };

  /** Gives the anchor its title back and forgets it. */
  const release = () => {
    hideTip();
    if (anchor && text && anchor.isConnected && !anchor.hasAttribute('title')) anchor.setAttribute('title', text);
    anchor = null;
    text = '';
    suppressed = false;
    watch.disconnect();
  };

  const show = () => {
    timer = null;
    if (!anchor || !anchor.isConnected || suppressed || !text) return;
    const el = tip ?? doc.createElement('div');
    el.className = 'tooltip';
    el.setAttribute('role', 'tooltip');
    el.dataset.testid = 'tooltip';
    el.textContent = text;
    if (!tip) doc.body.appendChild(el);
    tip = el;
    const r = anchor.getBoundingClientRect();
    const w = el.offsetWidth;
    const h = el.offsetHeight;
    const vw = doc.documentElement.clientWidth;
    const vh = doc.documentElement.clientHeight;
    let top = r.bottom + 6;
    if (top + h > vh - 4) top = Math.max(4, r.top - h - 6);
    const left = Math.max(4, Math.min(r.left + r.width / 2 - w / 2, vw - w - 4));
    el.style.left = `${Math.round(left)}px`;
    el.style.top = `${Math.round(top)}px`;
  };

  // The anchor leaving the document (its tab closed, its pane gone, a re-render) takes its
  // tooltip with it; a new title while it is held (React updating it) is held too.
  const watch = new MutationObserver(() => {
    if (!anchor) return;
    if (!anchor.isConnected) {
      hideTip();
      anchor = null;
      text = '';
      watch.disconnect();
      return;
    }
    const t = anchor.getAttribute('title');
    if (t !== null) {
      text = t;
      anchor.removeAttribute('title');
      if (tip) tip.textContent = t;
    }
  });

  const onOver = (ev: Event) => {
    const target = ev.target instanceof Element ? ev.target : null;
    const el = target?.closest<HTMLElement>('[title]') ?? null;
    if (!el) {
      // Inside the held anchor (it has no title now) nothing changes.
      if (anchor && target && anchor.contains(target)) return;
      if (anchor) release();
      return;
    }
    if (el === anchor) return;
    release();
    const t = el.getAttribute('title') ?? '';
    if (!t.trim()) return;
    anchor = el;
    text = t;
    el.removeAttribute('title');
    watch.observe(doc.body, { childList: true, subtree: true });
    watch.observe(el, { attributes: true, attributeFilter: ['title'] });
    timer = setTimeout(show, SHOW_DELAY_MS);
  };

  const onOut = (ev: Event) => {
    if (!anchor) return;
    const to = (ev as PointerEvent).relatedTarget;
    if (to instanceof Node && anchor.contains(to)) return;
    release();
  };

  // Pressing the element (or a key, or scrolling) puts its tooltip away until the pointer leaves.
  const onPress = () => {
    if (!anchor) return;
    suppressed = true;
    hideTip();
  };

  doc.addEventListener('pointerover', onOver, true);
  doc.addEventListener('pointerout', onOut, true);
  doc.addEventListener('pointerdown', onPress, true);
  doc.addEventListener('keydown', onPress, true);
  doc.addEventListener('wheel', onPress, { capture: true, passive: true });
  const onBlur = () => release();
  window.addEventListener('blur', onBlur);

  return {
    anchor: () => anchor,
    dispose() {
      release();
      doc.removeEventListener('pointerover', onOver, true);
      doc.removeEventListener('pointerout', onOut, true);
      doc.removeEventListener('pointerdown', onPress, true);
      doc.removeEventListener('keydown', onPress, true);
      doc.removeEventListener('wheel', onPress, true);
      window.removeEventListener('blur', onBlur);
    },
  };
}
