/**
 * A private system bus for tests: Debian's dbus-daemon on a socket in a temporary directory, and
 * the logind stand-in (logind-standin.py) owning org.freedesktop.login1 and
 * org.freedesktop.systemd1 on it. The stand-in's JSON lines are collected as a timeline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface StandinEvent { t: number; wallMs: number; event: string; [key: string]: unknown }

export interface PrivateBus {
  /** The bus address, for DBUS_SYSTEM_BUS_ADDRESS. */
  address: string;
  dir: string;
  /** The drop-in directory the stand-in rereads on its reload. */
  confDir: string;
  /** Every event the stand-in reported so far, in order. */
  events: StandinEvent[];
  /** Resolves with the first event named `name` (already seen or to come) matching `where`. */
  waitFor(name: string, timeoutMs?: number, where?: (e: StandinEvent) => boolean): Promise<StandinEvent>;
  /** Stops the stand-in only (logind going away). */
  stopStandin(): Promise<void>;
  stop(): Promise<void>;
}

const BUS_CONFIG = (socket: string) => `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
`;

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await exited(child);
}

/** Starts dbus-daemon and, unless `withStandin` is false, the logind stand-in. */
export async function startPrivateBus(options: { withStandin?: boolean; inhibitDelayMaxSec?: number } = {}): Promise<PrivateBus> {
  const dir = mkdtempSync(join(tmpdir(), 'kts-bus-'));
  const socket = join(dir, 'bus.sock');
  const confDir = join(dir, 'logind.conf.d');
  writeFileSync(join(dir, 'bus.conf'), BUS_CONFIG(socket));
  const daemon = spawn('dbus-daemon', [`--config-file=${join(dir, 'bus.conf')}`, '--nofork', '--print-address'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    daemon.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    daemon.once('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
  });
  const events: StandinEvent[] = [];
  const waiters: { name: string; where: (e: StandinEvent) => boolean; resolve: (e: StandinEvent) => void }[] = [];
  let standin: ChildProcess | null = null;
  if (options.withStandin !== false) {
    standin = spawn('python3', [join(import.meta.dirname, 'logind-standin.py'), '--address', address, '--conf-dir', confDir, '--inhibit-delay-max-sec', String(options.inhibitDelayMaxSec ?? 5)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    createInterface({ input: standin.stdout! }).on('line', (line) => {
      const e = JSON.parse(line) as StandinEvent;
      events.push(e);
      for (const w of waiters.splice(0)) {
        if (w.name === e.event && w.where(e)) w.resolve(e);
        else waiters.push(w);
      }
    });
  }
  const bus: PrivateBus = {
    address,
    dir,
    confDir,
    events,
    waitFor: (name, timeoutMs = 10_000, where = () => true) => {
      const seen = events.find((e) => e.event === name && where(e));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        // A deadline, not a wait: the signal normally comes first and clears it.
        const timer = setTimeout(() => reject(new Error(`the logind stand-in did not report ${name} in ${timeoutMs} ms; saw ${JSON.stringify(events)}`)), timeoutMs);
        waiters.push({ name, where, resolve: (e) => { clearTimeout(timer); resolve(e); } });
      });
    },
    stopStandin: async () => { if (standin) await kill(standin); },
    stop: async () => {
      if (standin) await kill(standin);
      await kill(daemon);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  if (standin) await bus.waitFor('ready');
  return bus;
}
