/**
 * systemd's Manager over the system bus, for the systemd cgroup driver: what runc's systemd manager
 * does through go-systemd. A started or stopped unit's job is waited for by its JobRemoved signal
 * (systemd broadcasts it on the system bus), with runc's 30 s bound; a job that ends other than
 * "done" is reported and its unit's failed state reset, as runc does. The connection is made on
 * first use and made again after the bus drops it (runc retries once on a disconnect).
 */
import { connectBus, DbusCallError, systemBusAddress, withTimeout, type DbusConnection } from '../dbus/connection.js';
import type { DbusValue } from '../dbus/marshal.js';
import { KubeletError } from '../../domain/errors.js';
import type { UnitProperty } from '../../domain/cgroups/systemd-units.js';
import type { SystemdUnits } from '../../ports/systemd-units.js';
import { SYSTEMD, SYSTEMD_MANAGER as MANAGER, SYSTEMD_PATH } from './systemd-names.js';

const UNIT_EXISTS = 'org.freedesktop.systemd1.UnitExists';
const NO_SUCH_UNIT = 'org.freedesktop.systemd1.NoSuchUnit';
const DISCONNECTED = 'KLT_ERR_DBUS_UNAVAILABLE';
/** runc's bound on a unit's job. */
export const JOB_TIMEOUT_MS = 30_000;
/** libdbus's default bound on a method's reply. */
export const CALL_TIMEOUT_MS = 25_000;
/** Job results kept for a reply that comes after its JobRemoved; a waiter takes its own at once. */
const FINISHED_JOBS_KEPT = 256;

export interface SystemdBusOptions {
  env: Readonly<Record<string, string | undefined>>;
  uid: number;
}

interface JobWaiter { resolve: (result: string) => void }

const toVariant = (p: UnitProperty): DbusValue => [p.name, { signature: p.signature, value: p.value as DbusValue }];

export function createSystemdBus(options: SystemdBusOptions): SystemdUnits {
  const address = systemBusAddress(options.env);
  let connecting: Promise<DbusConnection> | null = null;
  const waiters = new Map<string, JobWaiter>();
  const finished = new Map<string, string>();

  function onJobRemoved(body: DbusValue[]): void {
    const [, job, , result] = body as [number, string, string, string];
    const waiter = waiters.get(job);
    if (waiter) {
      waiters.delete(job);
      waiter.resolve(result);
      return;
    }
    finished.set(job, result);
    if (finished.size > FINISHED_JOBS_KEPT) finished.delete(finished.keys().next().value!);
  }

  function bus(): Promise<DbusConnection> {
    if (connecting) return connecting;
    const mine: Promise<DbusConnection> = (async () => {
      const conn = await connectBus(address, { uid: options.uid });
      // Only this connection's end forgets it: an older one closing late must not drop its successor.
      conn.onClose(() => {
        if (connecting === mine) connecting = null;
      });
      try {
        await conn.onSignal({ path: SYSTEMD_PATH, interface: MANAGER, member: 'JobRemoved', sender: SYSTEMD }, onJobRemoved);
      } catch (err) {
        conn.close();
        throw err;
      }
      return conn;
    })();
    connecting = mine;
    mine.catch(() => {
      if (connecting === mine) connecting = null;
    });
    return mine;
  }

  /** One exchange with systemd, bounded, made again once on a new connection when the bus dropped the old one. */
  async function exchange<T>(what: string, op: (conn: DbusConnection) => Promise<T>): Promise<T> {
    const once = async () => withTimeout(op(await bus()), CALL_TIMEOUT_MS, `systemd did not answer ${what} within ${CALL_TIMEOUT_MS} ms`, 'KLT_ERR_CGROUP');
    try {
      return await once();
    } catch (err) {
      if (!(err instanceof KubeletError && err.code === DISCONNECTED)) throw err;
      return once();
    }
  }

  const call = (member: string, signature: string, body: DbusValue[]): Promise<DbusValue[]> =>
    exchange(member, (conn) => conn.call({ destination: SYSTEMD, path: SYSTEMD_PATH, interface: MANAGER, member, signature, body }));

  function jobResult(job: string): Promise<string> {
    const done = finished.get(job);
    if (done !== undefined) {
      finished.delete(job);
      return Promise.resolve(done);
    }
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(job);
        reject(new Error('timeout'));
      }, JOB_TIMEOUT_MS);
      waiters.set(job, { resolve: (result) => { clearTimeout(timer); resolve(result); } });
    });
  }

  async function runJob(verb: 'create' | 'stop', unit: string, member: string, signature: string, body: DbusValue[], tolerated: string): Promise<void> {
    let job: string;
    try {
      [job] = (await call(member, signature, body)) as [string];
    } catch (err) {
      if (err instanceof DbusCallError && err.dbusName === tolerated) return;
      throw new KubeletError('KLT_ERR_CGROUP', `failed to ${verb} systemd unit ${JSON.stringify(unit)}: ${(err as Error).message}`, { cause: err });
    }
    const result = await jobResult(job).catch(() => 'timeout');
    if (result === 'done') return;
    await call('ResetFailedUnit', 's', [unit]).catch(() => undefined);
    const what = result === 'timeout' ? `no answer within ${JOB_TIMEOUT_MS} ms` : `the job ended "${result}"`;
    throw new KubeletError('KLT_ERR_CGROUP', `failed to ${verb} systemd unit ${JSON.stringify(unit)}: ${what}`);
  }

  return {
    async version() {
      let text: string;
      try {
        text = String(await exchange('Version', (conn) => conn.getProperty(SYSTEMD, SYSTEMD_PATH, MANAGER, 'Version')));
      } catch (err) {
        throw new KubeletError('KLT_ERR_CGROUP', `cannot read systemd's version: ${(err as Error).message}`, { cause: err });
      }
      const n = Number(/^v?(\d+)/.exec(text)?.[1]);
      if (!Number.isFinite(n)) throw new KubeletError('KLT_ERR_CGROUP', `cannot read systemd's version from ${JSON.stringify(text)}`);
      return n;
    },
    startTransientUnit: (unit, properties) => runJob('create', unit, 'StartTransientUnit', 'ssa(sv)a(sa(sv))', [unit, 'replace', properties.map(toVariant), []], UNIT_EXISTS),
    async setUnitProperties(unit, properties) {
      try {
        await call('SetUnitProperties', 'sba(sv)', [unit, true, properties.map(toVariant)]);
      } catch (err) {
        throw new KubeletError('KLT_ERR_CGROUP', `failed to set properties of systemd unit ${JSON.stringify(unit)}: ${(err as Error).message}`, { cause: err });
      }
    },
    stopUnit: (unit) => runJob('stop', unit, 'StopUnit', 'ss', [unit, 'replace'], NO_SUCH_UNIT),
    close() {
      void connecting?.then((c) => c.close(), () => undefined);
      connecting = null;
    },
  };
}
