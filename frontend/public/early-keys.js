// Runs first, before the app's bundle: records the keys typed while the page
// is still loading, so none is lost or cut (src/terminal/earlykeys.ts takes
// them over once the app runs). Plain script, no module: it must run as the
// document is parsed.
(function () {
  var start = performance.now();
  // The socket worker (src/transport/socketfactory.ts) starts here, while the app's bundle is
  // still being fetched and parsed: in WebKitGTK a worker takes ~60 ms to start, which was on
  // the window's start path. Only where the app will want it: the same rule as socketfactory's
  // socketMode (?socket=, localStorage "reprise.socket", else not in Chromium); the app takes it
  // over, or ends it if it decides otherwise.
  try {
    var pref = new URLSearchParams(location.search).get('socket');
    if (pref === null) pref = localStorage.getItem('reprise.socket');
    var wanted = pref === 'worker' || (pref !== 'main' && !/Chrom(e|ium)\//.test(navigator.userAgent));
    if (wanted && typeof Worker !== 'undefined') window.__repriseSocketWorker = new Worker('./assets/socket-worker.js');
  } catch {
    // The app starts its own (or keeps the socket on the main thread).
  }
  var keys = [];
  function typing(ev) {
    if (ev.metaKey || ev.isComposing) return false;
    var k = ev.key || '';
    if (ev.ctrlKey) return k.length === 1 && !ev.shiftKey;
    return k.length <= 2 || /^(Enter|Backspace|Tab|Escape|Arrow|Home|End|Delete)/.test(k);
  }
  function onKey(ev) {
    var tag = ev.target && ev.target.tagName;
    if (tag && tag !== 'BODY' && tag !== 'HTML') return;
    if (!typing(ev)) return;
    keys.push({ key: ev.key, code: ev.code, ctrlKey: ev.ctrlKey, shiftKey: ev.shiftKey, altKey: ev.altKey, metaKey: ev.metaKey, t: ev.timeStamp || performance.now() });
    // Space would scroll, Tab would move the focus, Backspace might navigate.
    ev.preventDefault();
  }
  document.addEventListener('keydown', onKey, true);
  // A click or touch before the first key: the typing began after the page listened.
  function onPointer(ev) {
    if (rec.pointer === null) rec.pointer = ev.timeStamp || performance.now();
  }
  document.addEventListener('pointerdown', onPointer, true);
  var rec = (window.__repriseEarlyKeys = {
    start: start,
    pointer: null,
    stop: function () {
      document.removeEventListener('keydown', onKey, true);
      document.removeEventListener('pointerdown', onPointer, true);
      return keys;
    },
  });
})();
