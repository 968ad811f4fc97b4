// Start and stop `reprise serve` in a temporary REPRISE_HOME, and poke at the
// processes behind it (the pty daemon, the shells).

import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, mkdirSync, cpSync, existsSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { waitFor } from './wait.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const execFileP = promisify(execFile);

/** The binary under test: $REPRISE_BIN, else ../build/bin/reprise. */
export const REPRISE_BIN = process.env.REPRISE_BIN || path.resolve(here, '../../build/bin/reprise');

/** Where screenshots and logs go: $ARTIFACTS, else ../test-artifacts. */
export const ARTIFACTS = path.resolve(process.env.ARTIFACTS || path.resolve(here, '../../test-artifacts'));

export function artifactPath(...parts) {
  const p = path.join(ARTIFACTS, ...parts);
  mkdirSync(path.dirname(p), { recursive: true });
  return p;
}

/** A fresh, short home directory (/tmp/re2e.XXXXXX: the daemon's socket path must stay short). */
export function makeHome() {
  return mkdtempSync(path.join(tmpdir(), 're2e.'));
}

/**
 * Starts `reprise serve --listen 127.0.0.1:0` on home (a fresh one if not given).
 * Resolves once the URL line is printed (http://127.0.0.1:PORT/#token=…: the token rides in the
 * fragment, docs/security.md). label names the log file in $ARTIFACTS/e2e-logs.
 * listen: another address (the same port again, so an open page reconnects); env: more
 * environment for serve and the shells it starts; tokenFile: `--token-file` (tokens are per
 * launch; an open page reconnects to a restarted serve only with a pinned one); bin: another
 * build than REPRISE_BIN.
 */
export async function startServe({ home = makeHome(), label = 'serve', timeoutMs = 20000, listen = '127.0.0.1:0', env: extraEnv = {}, tokenFile, bin = REPRISE_BIN } = {}) {
  if (!existsSync(bin)) throw new Error(`REPRISE_BIN ${bin} does not exist (run make build)`);
  const log = createWriteStream(artifactPath('e2e-logs', `${label}.serve.log`), { flags: 'a' });
  const env = { ...process.env, REPRISE_HOME: home, SHELL: '/bin/bash', ...extraEnv };
  const args = ['serve', '--listen', listen, ...(tokenFile ? ['--token-file', tokenFile] : [])];
  const proc = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let exited = null;
  const exitPromise = new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      exited = { code, signal };
      log.write(`--- exited code=${code} signal=${signal}\n`);
      resolve(exited);
    });
  });
  proc.stdout.on('data', (d) => {
    out += d.toString();
    log.write(d);
  });
  proc.stderr.on('data', (d) => log.write(d));
  const url = await waitFor(
    () => {
      if (exited) throw new Error(`reprise serve exited (${JSON.stringify(exited)}) before printing a URL; stdout: ${out}`);
      const m = out.match(/^(http:\/\/127\.0\.0\.1:\d+\/#token=\S+)$/m);
      return m ? m[1] : null;
    },
    { timeoutMs, message: () => `reprise serve printed no URL in ${timeoutMs} ms; stdout so far: ${JSON.stringify(out)}` },
  );
  const u = new URL(url);
  const server = {
    proc,
    home,
    url,
    token: new URLSearchParams(u.hash.slice(1)).get('token'),
    origin: u.origin,
    pid: proc.pid,
    stdout: () => out,
    exited: () => exited,
    /** SIGTERM, and wait for the process to exit (SIGKILL after timeoutMs). */
    async stop(timeoutMs = 10000) {
      if (exited) return exited;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
      const r = await exitPromise;
      clearTimeout(t);
      log.end();
      return r;
    },
  };
  return server;
}

/** The pty daemon's pid from $home/run/ptyd.lock, or null. */
export function daemonPid(home) {
  try {
    const pid = parseInt(readFileSync(path.join(home, 'run', 'ptyd.lock'), 'utf8').trim(), 10);
    return Number.isFinite(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** $home/run/host.json ({pid,url,wsUrl,token}) or null. */
export function hostJson(home) {
  try {
    return JSON.parse(readFileSync(path.join(home, 'run', 'host.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** True when pid is a live process (not gone, not a zombie). */
export function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** utime+stime of pid in clock ticks (from /proc/pid/stat). */
export function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After "pid (comm) ", field 3 (state) is f[0]; utime is field 14, stime 15.
  return parseInt(f[11], 10) + parseInt(f[12], 10);
}

/** Children of pid (from /proc/pid/task/pid/children). */
export function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** SIGKILLs the daemon of home; returns its pid. */
export function killDaemon(home) {
  const pid = daemonPid(home);
  if (!pid) throw new Error(`no daemon pid in ${home}/run/ptyd.lock`);
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** `reprise terminals list --json --all --home home`. */
export async function terminalsList(home) {
  const { stdout } = await execFileP(REPRISE_BIN, ['terminals', 'list', '--json', '--all', '--home', home], {
    env: { ...process.env, REPRISE_HOME: home },
    timeout: 15000,
  });
  return JSON.parse(stdout);
}

/** The pids whose environment has REPRISE_HOME=home (as scripts/stop-home.sh finds them). */
function processesOf(home) {
  const mark = Buffer.from(`REPRISE_HOME=${home}\0`);
  const pids = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`).includes(mark)) pids.push(pid);
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/**
 * Kills everything still running for a home — the panes' shells and agents, which a daemon
 * killed with -9 leaves behind, and the hooks they run — and waits until none is left, so
 * nothing writes into the home while it is removed (rmSync failed with ENOTEMPTY otherwise).
 */
async function stopHome(home) {
  for (let round = 0; round < 100; round++) {
    const pids = processesOf(home);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  console.error(`cleanup: processes still running in ${home}: ${processesOf(home).join(' ')}`);
}

/**
 * Stops serve (if any), SIGKILLs the daemon and whatever else still runs in the home, keeps the logs in $ARTIFACTS/e2e-logs/<label>/ and
 * removes the home. Never throws.
 */
export async function cleanup({ server, home, label = 'serve' }) {
  home = home || server?.home;
  try {
    if (server) await server.stop();
  } catch (e) {
    console.error('cleanup: stopping serve:', e);
  }
  if (!home) return;
  const dpid = daemonPid(home);
  if (dpid && alive(dpid)) {
    try {
      process.kill(dpid, 'SIGKILL');
    } catch {
      // gone already
    }
    await waitFor(() => !alive(dpid), { timeoutMs: 5000 }).catch(() => {});
  }
  await stopHome(home);
  try {
    if (existsSync(path.join(home, 'logs'))) cpSync(path.join(home, 'logs'), artifactPath('e2e-logs', label), { recursive: true });
  } catch {
    // best effort
  }
  try {
    rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  } catch (e) {
    console.error(`cleanup: removing ${home}:`, e);
  }
}
