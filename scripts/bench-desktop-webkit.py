#!/usr/bin/python3
"""A WebKitGTK window for scripts/bench-desktop.sh (system python3 with gi).

  bench-desktop-webkit.py open URL [--size WxH] [--title-exit TITLE] [--timeout S]
      Opens URL in a WebKitGTK 4.1 window configured like the Wails window
      (hardware acceleration policy ALWAYS: what Wails v2.15 sets for the
      default Linux options). Exits when the page sets document.title to
      TITLE, or after --timeout seconds (status 1).

  bench-desktop-webkit.py set-local-storage KEY VALUE --prgname NAME
      Writes localStorage[KEY] = VALUE for the origin wails://wails through
      WebKitGTK itself, in the default data directory of a program named NAME
      ($XDG_DATA_HOME/NAME, as the Wails app with ProgramName NAME uses), so
      the app reads it on its next start. Prints what the page read back.
"""
import argparse
import json
import sys

import gi

gi.require_version('Gtk', '3.0')
gi.require_version('WebKit2', '4.1')
from gi.repository import Gio, GLib, Gtk, WebKit2  # noqa: E402


def make_view(size):
    win = Gtk.Window(title='bench')
    w, h = size
    win.set_default_size(w, h)
    view = WebKit2.WebView()
    s = view.get_settings()
    s.set_hardware_acceleration_policy(WebKit2.HardwareAccelerationPolicy.ALWAYS)
    win.add(view)
    win.show_all()
    return win, view


def cmd_open(a):
    w, h = (int(x) for x in a.size.split('x'))
    status = {'code': 1}
    _, view = make_view((w, h))

    def on_title(v, _p):
        if a.title_exit and v.get_title() == a.title_exit:
            status['code'] = 0
            Gtk.main_quit()

    def on_timeout():
        print(f'bench-desktop-webkit: timed out after {a.timeout} s (title {view.get_title()!r})', file=sys.stderr)
        Gtk.main_quit()
        return False

    view.connect('notify::title', on_title)
    GLib.timeout_add_seconds(a.timeout, on_timeout)
    view.load_uri(a.url)
    Gtk.main()
    return status['code']


PAGE = """<!doctype html><meta charset="utf-8"><title>set</title><script>
localStorage.setItem(%s, %s);
document.title = 'done:' + JSON.stringify(localStorage.getItem(%s));
</script>"""


def cmd_set_local_storage(a):
    GLib.set_prgname(a.prgname)
    ctx = WebKit2.WebContext.get_default()
    page = (PAGE % (json.dumps(a.key), json.dumps(a.value), json.dumps(a.key))).encode()

    def on_request(req):
        stream = Gio.MemoryInputStream.new_from_bytes(GLib.Bytes.new(page))
        req.finish(stream, len(page), 'text/html')

    ctx.register_uri_scheme('wails', on_request)
    _, view = make_view((400, 300))
    out = {'title': None}

    def on_title(v, _p):
        t = v.get_title() or ''
        if t.startswith('done:'):
            out['title'] = t
            # Give WebKit a moment to flush the storage to disk.
            GLib.timeout_add(1500, Gtk.main_quit)

    view.connect('notify::title', on_title)
    GLib.timeout_add_seconds(30, Gtk.main_quit)
    view.load_uri('wails://wails/')
    Gtk.main()
    if not out['title']:
        print('bench-desktop-webkit: the page did not run', file=sys.stderr)
        return 1
    print(out['title'][len('done:'):])
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest='cmd', required=True)
    o = sub.add_parser('open')
    o.add_argument('url')
    o.add_argument('--size', default='1280x800')
    o.add_argument('--title-exit', default='')
    o.add_argument('--timeout', type=int, default=300)
    s = sub.add_parser('set-local-storage')
    s.add_argument('key')
    s.add_argument('value')
    s.add_argument('--prgname', required=True)
    a = p.parse_args()
    Gtk.init(None)
    sys.exit(cmd_open(a) if a.cmd == 'open' else cmd_set_local_storage(a))


if __name__ == '__main__':
    main()
