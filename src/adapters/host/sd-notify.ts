/**
 * run.sdNotify: tell systemd that start-up is complete. The Go kubelet runs
 * `daemon.SdNotify(false, "READY=1")`: one datagram to the AF_UNIX socket named by NOTIFY_SOCKET
 * (a leading '@' names an abstract socket), and ignores every failure.
 *
 * Node cannot send unix datagrams (node:dgram is UDP only, node:net is stream only), so we run
 * systemd's own `systemd-notify --ready`, which sends READY=1 to the same NOTIFY_SOCKET (abstract
 * names included) and, by default, waits until the manager has read it. The trade-off: the datagram
 * comes from a child process, and systemd accepts notifications from processes other than the main
 * one only with `NotifyAccess=all` in the unit (Go's in-process send works with the default
 * `NotifyAccess=main`). A kubelet-ts unit with Type=notify must therefore set NotifyAccess=all.
 * Without systemd-notify on the host we send nothing and say 'unsupported'.
 *
 * The watchdog's keep-alive (WATCHDOG=1, SystemdWatchdog) goes the same way, with the same caveat.
 */
import { spawn } from 'node:child_process';
import type { Logger } from '../../log.js';
import type { SdNotifyOutcome } from '../../domain/node/host-types.js';
import type { SystemdNotifier } from '../../ports/host.js';

export interface SystemdNotifyCommandOptions {
  /** Where NOTIFY_SOCKET is read from; default process.env. */
  env?: NodeJS.ProcessEnv;
  command?: string;
  /** Give up on a manager that never reads the message. */
  timeoutMs?: number;
  log?: Logger;
}

export class SystemdNotifyCommand implements SystemdNotifier {
  private readonly env: NodeJS.ProcessEnv;
  private readonly command: string;
  private readonly timeoutMs: number;
  private readonly log: Logger | undefined;

  constructor(opts: SystemdNotifyCommandOptions = {}) {
    this.env = opts.env ?? process.env;
    this.command = opts.command ?? 'systemd-notify';
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.log = opts.log;
  }

  notifyReady(): Promise<SdNotifyOutcome> {
    return this.send(['--ready'], 'READY=1', 'Unable to send systemd daemon successful start message');
  }

  /** WATCHDOG=1: the systemd watchdog's keep-alive; the caller logs what a failure means. */
  notifyWatchdog(): Promise<SdNotifyOutcome> {
    return this.send(['WATCHDOG=1'], 'WATCHDOG=1');
  }

  private send(args: string[], what: string, failedMessage?: string): Promise<SdNotifyOutcome> {
    const socket = this.env['NOTIFY_SOCKET'] ?? '';
    if (socket === '') return Promise.resolve('no-socket');
    return new Promise((resolve) => {
      const child = spawn(this.command, args, {
        env: { ...this.env, NOTIFY_SOCKET: socket },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      let settled = false;
      const finish = (outcome: SdNotifyOutcome, fields: Record<string, unknown> = {}) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (outcome === 'unsupported') {
          this.log?.warn({ command: this.command, notifySocket: socket }, `Cannot notify systemd: systemd-notify not found, ${what} not sent`);
        } else if (outcome === 'failed' && failedMessage !== undefined) {
          this.log?.warn({ command: this.command, notifySocket: socket, ...fields }, failedMessage);
        }
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        finish('failed', { timeoutMs: this.timeoutMs });
      }, this.timeoutMs);
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', (err: NodeJS.ErrnoException) => finish(err.code === 'ENOENT' ? 'unsupported' : 'failed', { err }));
      child.on('close', (code) => finish(code === 0 ? 'sent' : 'failed', { exitCode: code, stderr: stderr.trim() }));
    });
  }
}
