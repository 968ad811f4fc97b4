// Reference points for the browser benchmarks (e2e/bench/run.mjs), measured on the same machine
// in the same run: a raw pty drained by a small Python reader (nothing renders), and tmux with a
// client attached whose pty is drained the same way. Plus /proc memory figures. Not used by the
// test suites.

import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
export const TMUX = process.env.TMUX_BIN || (existsSync('/usr/bin/tmux') ? '/usr/bin/tmux' : 'tmux');

/**
 * ptyrun.py [--cols C] [--rows R] [--interrupt-after S] [--quiet Q] CMD ARGS…
 *
 * Runs CMD on a new pty of C×R (pty.fork: its own session, the pty as controlling terminal) and
 * reads the master as fast as it can (64 KiB reads, select, output discarded) until EOF/EIO.
 * Prints {"bytes", "seconds"} (fork → last byte). With --interrupt-after S: after S seconds it
 * writes one ^C (0x03) to the master, as a key press would, and reads on until Q seconds pass
 * with no output (or EOF); adds "stopMs" (the ^C → the last byte read) and "bytesAfter".
 */
const PTYRUN_PY = String.raw`
import os, pty, sys, time, json, select, fcntl, termios, struct, signal
a = sys.argv[1:]
opts = {}
while a and a[0].startswith('--'):
    k = a.pop(0)[2:]
    opts[k] = a.pop(0)
cols, rows = int(opts.get('cols', 160)), int(opts.get('rows', 40))
intr = float(opts['interrupt-after']) if 'interrupt-after' in opts else None
quiet = float(opts.get('quiet', 1))
t0 = time.monotonic()
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    os.execvp(a[0], a)
total = 0; t_last = None; t_int = None; after = 0
while True:
    timeout = None
    if intr is not None:
        timeout = max(0, (t0 + intr) - time.monotonic()) if t_int is None else quiet
    r, _, _ = select.select([fd], [], [], timeout)
    now = time.monotonic()
    if not r:
        if t_int is None:
            os.write(fd, b'\x03')
            t_int = time.monotonic()
            continue
        break
    try:
        d = os.read(fd, 65536)
    except OSError:
        break
    if not d:
        break
    total += len(d)
    t_last = now
    if t_int is not None:
        after += len(d)
res = {'bytes': total, 'seconds': (t_last or t0) - t0}
if t_int is not None:
    res['stopMs'] = (t_last - t_int) * 1000 if t_last and t_last > t_int else 0
    res['bytesAfter'] = after
try:
    os.kill(pid, signal.SIGHUP)
except OSError:
    pass
try:
    os.close(fd)
except OSError:
    pass
try:
    os.waitpid(pid, 0)
except OSError:
    pass
print(json.dumps(res), flush=True)
`;

function ptyrunFile(dir) {
  const f = path.join(dir, 'ptyrun.py');
  if (!existsSync(f)) writeFileSync(f, PTYRUN_PY);
  return f;
}

const ptyrunArgs = (dir, cmd, { cols = 160, rows = 40, interruptAfter, quiet } = {}) => [
  ptyrunFile(dir),
  '--cols', String(cols),
  '--rows', String(rows),
  ...(interruptAfter !== undefined ? ['--interrupt-after', String(interruptAfter)] : []),
  ...(quiet !== undefined ? ['--quiet', String(quiet)] : []),
  ...cmd,
];

/** Runs cmd (argv) on a drained pty (see PTYRUN_PY); resolves to its JSON result. dir: for the helper script. */
export async function ptyRun(dir, cmd, opts = {}) {
  const { stdout } = await execFileP(PYTHON, ptyrunArgs(dir, cmd, opts), {
    env: { ...process.env, ...(opts.env || {}) },
    timeout: opts.timeoutMs || 600000,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').pop());
}

/**
 * A private tmux server (socket dir/<sockName>, no config file, status line off) with one
 * detached session "b" of cols×rows running `bash --norc --noprofile`.
 */
export async function startTmux(dir, { cols = 160, rows = 40, sockName = 'tmux.sock' } = {}) {
  const sock = path.join(dir, sockName);
  const env = { ...process.env, TERM: 'xterm-256color' };
  delete env.TMUX;
  const tmux = (...args) => execFileP(TMUX, ['-S', sock, ...args], { env, timeout: 600000 });
  await tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'b', '-x', String(cols), '-y', String(rows), 'bash --norc --noprofile');
  await tmux('set-option', '-g', 'status', 'off');
  let client = null;
  let seq = 0;
  const t = {
    sock,
    tmux,
    version: (await execFileP(TMUX, ['-V'])).stdout.trim(),
    /** Attaches a client on a drained cols×rows pty (in the background) and waits until tmux lists it. */
    async attach() {
      if (client) return;
      const proc = spawn(PYTHON, ptyrunArgs(dir, [TMUX, '-u', '-S', sock, 'attach-session', '-t', 'b'], { cols, rows }), { env, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      proc.stdout.on('data', (d) => (out += d));
      const exited = new Promise((r) => proc.on('exit', r));
      client = { proc, exited, result: () => out };
      const deadline = Date.now() + 10000;
      while (!(await tmux('list-clients')).stdout.trim()) {
        if (Date.now() > deadline) throw new Error('tmux: the client did not attach');
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    /** Detaches the background client; resolves to its ptyrun result (bytes it drained). */
    async detach() {
      if (!client) return null;
      const c = client;
      client = null;
      await tmux('detach-client', '-a').catch(() => {});
      await tmux('detach-client').catch(() => {});
      await c.exited;
      try {
        return JSON.parse(c.result().trim());
      } catch {
        return null;
      }
    },
    /** Types `clear; cat file; tmux wait-for -S ch` into the session; resolves to ms until ch is signalled. */
    async timeCat(file) {
      const ch = `done${++seq}`;
      const waiter = execFileP(TMUX, ['-S', sock, 'wait-for', ch], { env, timeout: 600000 });
      const t0 = performance.now();
      await tmux('send-keys', '-t', 'b', `clear; cat ${file}; ${TMUX} -S ${sock} wait-for -S ${ch}`, 'Enter');
      await waiter;
      return performance.now() - t0;
    },
    /** The visible screen of the session, as text. */
    async capture() {
      return (await tmux('capture-pane', '-p', '-t', 'b')).stdout;
    },
    /**
     * Ctrl+C under flood: types `yes` into the session, then runs a client on a drained pty that
     * writes ^C to its pty after interruptAfter s (as a key press in the terminal running tmux
     * would) and reads until quiet s pass without output. Resolves to its ptyrun result.
     */
    async ctrlC({ interruptAfter = 1, quiet = 1 } = {}) {
      await tmux('send-keys', '-t', 'b', 'clear; yes', 'Enter');
      const { stdout } = await execFileP(PYTHON, ptyrunArgs(dir, [TMUX, '-u', '-S', sock, 'attach-session', '-t', 'b'], { cols, rows, interruptAfter, quiet }), { env, timeout: 60000 });
      return JSON.parse(stdout.trim().split('\n').pop());
    },
    async close() {
      await t.detach().catch(() => {});
      await tmux('kill-server').catch(() => {});
    },
  };
  return t;
}

/** VmRSS and VmHWM of pid in KiB (from /proc/pid/status), or null. */
export function memOf(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => parseInt((s.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')) || [])[1], 10);
    return { rssKiB: kb('VmRSS'), hwmKiB: kb('VmHWM') };
  } catch {
    return null;
  }
}
