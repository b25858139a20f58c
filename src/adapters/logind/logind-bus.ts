/**
 * logind (and systemd's manager, for the reload) over the system bus: Go's nodeshutdown/systemd
 * DBusCon on our own D-Bus client. The lock goes through systemd-inhibit (inhibit-command.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectBus, systemBusAddress, type DbusConnection } from '../dbus/connection.js';
import type { Logger } from '../../log.js';
import type { InhibitLock, Logind, LogindConnection } from '../../ports/logind.js';
import { SYSTEMD, SYSTEMD_MANAGER, SYSTEMD_PATH } from '../systemd/systemd-names.js';
import { inhibitShutdownWithCommand } from './inhibit-command.js';

const LOGIND = 'org.freedesktop.login1';
const LOGIND_PATH = '/org/freedesktop/login1';
const LOGIND_MANAGER = 'org.freedesktop.login1.Manager';
const SIGHUP = 1;

/** Go's logindConfigDirectory and kubeletLogindConf. */
export const LOGIND_CONFIG_DIRECTORY = '/etc/systemd/logind.conf.d/';
export const KUBELET_LOGIND_CONF = '99-kubelet.conf';

/** Go's drop-in: InhibitDelayMaxSec in whole seconds (rounded as %.0f does). */
export function logindOverride(delayMs: number): string {
  return `# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=${Math.round(delayMs / 1000)}\n`;
}

export interface LogindBusOptions {
  env: Readonly<Record<string, string | undefined>>;
  uid: number;
  /** Where the drop-in goes; Go's is fixed, tests give their own. */
  configDirectory?: string;
  inhibitCommand?: string;
  /** Where a PrepareForShutdown from someone other than logind is reported. */
  logger?: Logger;
}

export function createLogindBus(options: LogindBusOptions): Logind {
  const address = systemBusAddress(options.env);
  const configDirectory = options.configDirectory ?? LOGIND_CONFIG_DIRECTORY;
  return {
    connect: async () => logindConnection(await connectBus(address, { uid: options.uid }), {
      address,
      configDirectory,
      env: options.env,
      ...(options.inhibitCommand ? { inhibitCommand: options.inhibitCommand } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    }),
  };
}

function logindConnection(
  bus: DbusConnection,
  o: { address: string; configDirectory: string; env: Readonly<Record<string, string | undefined>>; inhibitCommand?: string; logger?: Logger },
): LogindConnection {
  let closing = false;
  let spoofLogged = false;
  return {
    currentInhibitDelayMs: async () => {
      const usec = await bus.getProperty(LOGIND, LOGIND_PATH, LOGIND_MANAGER, 'InhibitDelayMaxUSec');
      if (typeof usec !== 'bigint') throw new Error('InhibitDelayMaxUSec from logind is not a uint64 as expected');
      return Number(usec / 1000n);
    },
    overrideInhibitDelay: async (delayMs) => {
      await mkdir(o.configDirectory, { recursive: true, mode: 0o755 });
      await writeFile(join(o.configDirectory, KUBELET_LOGIND_CONF), logindOverride(delayMs), { mode: 0o644 });
    },
    reloadLogindConf: async () => {
      await bus.call({ destination: SYSTEMD, path: SYSTEMD_PATH, interface: SYSTEMD_MANAGER, member: 'KillUnit', signature: 'ssi', body: ['systemd-logind.service', 'all', SIGHUP] });
    },
    inhibitShutdown: (): Promise<InhibitLock> =>
      inhibitShutdownWithCommand({ address: o.address, env: o.env, ...(o.inhibitCommand ? { command: o.inhibitCommand } : {}) }),
    // Only logind's own signal counts: anyone on the system bus may send one named PrepareForShutdown.
    monitorShutdown: (onEvent) =>
      bus.onSignal({ path: LOGIND_PATH, interface: LOGIND_MANAGER, member: 'PrepareForShutdown', sender: LOGIND }, (body) => {
        // Go logs and skips a signal without a boolean; so do we, silently.
        if (typeof body[0] === 'boolean') onEvent(body[0]);
      }, {
        // Once per connection: a flood of them must not become a flood of logs.
        onOtherSender: (sender) => {
          if (spoofLogged) return;
          spoofLogged = true;
          o.logger?.warn({ sender, owner: LOGIND }, 'Ignoring PrepareForShutdown from a sender that does not own the logind name');
        },
      }),
    onClose: (handler) => bus.onClose(() => { if (!closing) handler(); }),
    close: () => {
      closing = true;
      bus.close();
    },
  };
}
