import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectBus, DbusCallError } from '../../../src/adapters/dbus/connection.js';
import { INHIBIT_WHY } from '../../../src/adapters/logind/inhibit-command.js';
import { createLogindBus, KUBELET_LOGIND_CONF } from '../../../src/adapters/logind/logind-bus.js';
import type { LogindConnection } from '../../../src/ports/logind.js';
import { startPrivateBus, type PrivateBus } from '../../support/private-bus.js';

const uid = process.getuid?.() ?? 0;
let bus: PrivateBus | null = null;
let conn: LogindConnection | null = null;

afterEach(async () => {
  conn?.close();
  conn = null;
  await bus?.stop();
  bus = null;
});

async function connected(): Promise<{ bus: PrivateBus; conn: LogindConnection }> {
  bus = await startPrivateBus();
  conn = await createLogindBus({ env: { DBUS_SYSTEM_BUS_ADDRESS: bus.address }, uid, configDirectory: bus.confDir }).connect();
  return { bus, conn };
}

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
