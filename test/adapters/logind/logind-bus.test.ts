import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectBus, DbusCallError } from '../../../src/adapters/dbus/connection.js';
import type { DbusMessage } from '../../../src/adapters/dbus/message.js';
import { INHIBIT_WHY } from '../../../src/adapters/logind/inhibit-command.js';
import { createLogindBus, KUBELET_LOGIND_CONF } from '../../../src/adapters/logind/logind-bus.js';
import type { Logger } from '../../../src/log.js';
import type { LogindConnection } from '../../../src/ports/logind.js';
import { startPrivateBus, type PrivateBus } from '../../support/private-bus.js';
import { rawBusClient, requestName, type RawBusClient } from '../../support/raw-bus-client.js';

const uid = process.getuid?.() ?? 0;
let bus: PrivateBus | null = null;
let conn: LogindConnection | null = null;

afterEach(async () => {
  conn?.close();
  conn = null;
  await bus?.stop();
  bus = null;
});

async function connected(logger?: Logger): Promise<{ bus: PrivateBus; conn: LogindConnection }> {
  bus = await startPrivateBus();
  conn = await createLogindBus({ env: { DBUS_SYSTEM_BUS_ADDRESS: bus.address }, uid, configDirectory: bus.confDir, ...(logger ? { logger } : {}) }).connect();
  return { bus, conn };
}

/** The warnings a logger was given: its fields and message. */
function warningsLogger(): { logger: Logger; warnings: { fields: Record<string, unknown>; msg: string }[] } {
  const warnings: { fields: Record<string, unknown>; msg: string }[] = [];
  return { logger: { warn: (fields: Record<string, unknown>, msg: string) => void warnings.push({ fields, msg }) } as unknown as Logger, warnings };
}

/** The unique name that connected last: the bus numbers them in order. */
async function newestUniqueName(address: string): Promise<string> {
  const client = await connectBus(address, { uid });
  try {
    const [names] = await client.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'ListNames' });
    const unique = (names as string[]).filter((n) => n.startsWith(':') && n !== client.uniqueName);
    return unique.sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1])).at(-1) as string;
  } finally {
    client.close();
  }
}

const PREPARE_FOR_SHUTDOWN: Omit<DbusMessage, 'serial'> = { kind: 'signal', path: '/org/freedesktop/login1', interface: 'org.freedesktop.login1.Manager', member: 'PrepareForShutdown', signature: 'b', body: [true] };

/** Asks the stand-in to power off, as `systemctl poweroff` asks logind. */
async function powerOff(address: string): Promise<void> {
  const client = await connectBus(address, { uid });
  try {
    await client.call({ destination: 'org.freedesktop.login1', path: '/org/freedesktop/login1', interface: 'org.freedesktop.login1.Manager', member: 'PowerOff', signature: 'b', body: [false] });
  } finally {
    client.close();
  }
}

describe('createLogindBus (real dbus-daemon, logind stand-in)', () => {
  it('reads InhibitDelayMaxUSec, and raises it with the drop-in and a SIGHUP through systemd as Go does', async () => {
    const { bus, conn } = await connected();
    expect(await conn.currentInhibitDelayMs()).toBe(5_000);
    await conn.overrideInhibitDelay(30_000);
    expect(readFileSync(join(bus.confDir, KUBELET_LOGIND_CONF), 'utf8')).toBe('# Kubelet logind override\n[Login]\nInhibitDelayMaxSec=30\n');
    await conn.reloadLogindConf();
    expect(await conn.currentInhibitDelayMs()).toBe(30_000);
  });

  it('holds a delay lock with Go\'s who and why until released, and power-off waits for it', async () => {
    const { bus, conn } = await connected();
    const signals: boolean[] = [];
    await conn.monitorShutdown((active) => signals.push(active));
    const lock = await conn.inhibitShutdown();
    expect(await bus.waitFor('inhibitor.taken')).toMatchObject({ what: 'shutdown', who: 'kubelet', why: INHIBIT_WHY, mode: 'delay' });
    await powerOff(bus.address);
    await expect.poll(() => signals).toEqual([true]);
    // Still held: logind waits for our lock.
    expect(await bus.waitFor('poweroff.delayed')).toMatchObject({ by: [{ who: 'kubelet', why: INHIBIT_WHY }] });
    expect(bus.events.map((e) => e.event)).not.toContain('poweroff');
    await lock.release();
    expect(await bus.waitFor('poweroff')).toMatchObject({ timedOut: false });
    await lock.release();
  });

  it('hands on PrepareForShutdown from the owner of org.freedesktop.login1 only, followed as the name changes hands', async () => {
    const { logger, warnings } = warningsLogger();
    bus = await startPrivateBus();
    const spoofer: RawBusClient = await rawBusClient(bus.address, uid);
    try {
      conn = await createLogindBus({ env: { DBUS_SYSTEM_BUS_ADDRESS: bus.address }, uid, configDirectory: bus.confDir, logger }).connect();
      const kubelet = await newestUniqueName(bus.address);
      const signals: boolean[] = [];
      await conn.monitorShutdown((active) => signals.push(active));
      // Another local user's connection: to everyone, then to the kubelet alone (the bus hands a
      // signal with a destination over whatever the match rules say), then to everyone again.
      spoofer.send(PREPARE_FOR_SHUTDOWN);
      spoofer.send({ ...PREPARE_FOR_SHUTDOWN, destination: kubelet });
      spoofer.send(PREPARE_FOR_SHUTDOWN);
      await expect.poll(() => warnings).toEqual([{ fields: { sender: spoofer.uniqueName, owner: 'org.freedesktop.login1' }, msg: 'Ignoring PrepareForShutdown from a sender that does not own the logind name' }]);
      // logind's own, after them: it alone is handed on.
      await powerOff(bus.address);
      await expect.poll(() => signals).toEqual([true]);
      expect(warnings).toHaveLength(1);

      // logind goes away and the name passes to another connection: its signal is now the owner's.
      await bus.stopStandin();
      requestName(spoofer, 'org.freedesktop.login1');
      spoofer.send({ ...PREPARE_FOR_SHUTDOWN, body: [false] });
      await expect.poll(() => signals).toEqual([true, false]);
    } finally {
      spoofer.close();
    }
  });

  it('cannot set InhibitDelayMaxUSec over the bus: logind\'s properties are read-only, hence Go\'s drop-in', async () => {
    const { bus } = await connected();
    const client = await connectBus(bus.address, { uid });
    try {
      await expect(client.setProperty('org.freedesktop.login1', '/org/freedesktop/login1', 'org.freedesktop.login1.Manager', 'InhibitDelayMaxUSec', { signature: 't', value: 30_000_000n }))
        .rejects.toMatchObject({ code: 'KLT_ERR_DBUS_CALL', dbusName: 'org.freedesktop.DBus.Error.PropertyReadOnly' });
      expect(await client.getProperty('org.freedesktop.login1', '/org/freedesktop/login1', 'org.freedesktop.login1.Manager', 'InhibitDelayMaxUSec')).toBe(5_000_000n);
    } finally {
      client.close();
    }
  });

  it('answers a call logind does not know with the D-Bus error name', async () => {
    const { bus } = await connected();
    const client = await connectBus(bus.address, { uid });
    try {
      await expect(client.call({ destination: 'org.freedesktop.login1', path: '/org/freedesktop/login1', interface: 'org.freedesktop.login1.Manager', member: 'Nope' }))
        .rejects.toSatisfy((e) => e instanceof DbusCallError && e.code === 'KLT_ERR_DBUS_CALL' && e.dbusName === 'org.freedesktop.DBus.Error.UnknownMethod');
    } finally {
      client.close();
    }
  });

  it('fails to read the delay when no logind owns its name, and to connect when there is no bus', async () => {
    bus = await startPrivateBus({ withStandin: false });
    conn = await createLogindBus({ env: { DBUS_SYSTEM_BUS_ADDRESS: bus.address }, uid }).connect();
    await expect(conn.currentInhibitDelayMs()).rejects.toMatchObject({ code: 'KLT_ERR_DBUS_CALL', dbusName: 'org.freedesktop.DBus.Error.ServiceUnknown' });
    await expect(createLogindBus({ env: { DBUS_SYSTEM_BUS_ADDRESS: `unix:path=${join(bus.dir, 'none.sock')}` }, uid }).connect())
      .rejects.toMatchObject({ code: 'KLT_ERR_DBUS_UNAVAILABLE' });
  });
});
