import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createDraDriverRegistry } from '../../../src/adapters/dra/dra-driver-registry.js';
import { startDriverSliceWipes } from '../../../src/adapters/dra/driver-slice-wipes.js';
import { DRIVER_WIPE_DELAY_MS } from '../../../src/domain/dra/slice-wipe.js';

const GPU = 'gpu.example.com';
const plugin = (endpoint: string) => ({ driverName: GPU, endpoint, service: 'v1.DRAPlugin' }) as const;
const settle = () => new Promise((resolve) => setImmediate(resolve));

function world() {
  const clock = new SimulatedClock();
  const registry = createDraDriverRegistry();
  const wipes: string[] = [];
  const aborted: string[] = [];
  let finish: () => void = () => undefined;
  const loop = startDriverSliceWipes({
    registry, clock,
    wipe: (driver, signal) => {
      wipes.push(driver);
      signal.addEventListener('abort', () => aborted.push(driver));
      return new Promise<void>((done) => { finish = done; });
    },
  });
  /** A plugin registered whose connection came up, as the plugin clients report it. */
  const connect = (endpoint: string) => {
    registry.add(plugin(endpoint));
    registry.setConnected(GPU, endpoint, true);
  };
  return { clock, registry, connect, wipes, aborted, finish: () => finish(), stop: () => loop.stop() };
}

describe('the per-driver slice wipe', () => {
  it('wipes a driver\'s slices 30 s after its last plugin went, not while another of its plugins is there', async () => {
    const w = world();
    w.connect('/p/a.sock');
    w.connect('/p/b.sock');
    w.registry.remove(GPU, '/p/a.sock');
    w.clock.increment(DRIVER_WIPE_DELAY_MS);
    expect(w.wipes).toEqual([]);
    w.registry.remove(GPU, '/p/b.sock');
    w.clock.increment(DRIVER_WIPE_DELAY_MS - 1);
    expect(w.wipes).toEqual([]);
    w.clock.increment(1);
    expect(w.wipes).toEqual([GPU]);
    w.finish();
    await settle();
    w.stop();
  });

  it('keeps the slices of a driver whose plugin came back in time (a rolling update), and stops a wipe under way when one comes back', async () => {
    const w = world();
    w.connect('/p/a.sock');
    w.registry.remove(GPU, '/p/a.sock');
    w.clock.increment(DRIVER_WIPE_DELAY_MS / 2);
    w.connect('/p/b.sock');
    w.clock.increment(DRIVER_WIPE_DELAY_MS);
    expect(w.wipes).toEqual([]);

    w.registry.remove(GPU, '/p/b.sock');
    w.clock.increment(DRIVER_WIPE_DELAY_MS);
    expect(w.wipes).toEqual([GPU]);
    w.connect('/p/c.sock');
    expect(w.aborted).toEqual([GPU]);
    w.stop();
  });

  it('wipes the slices of a driver whose plugins are registered but none connected (a plugin that died leaving its socket), unless one connects in time', async () => {
    const w = world();
    w.connect('/p/a.sock');
    w.registry.setConnected(GPU, '/p/a.sock', false);
    w.clock.increment(DRIVER_WIPE_DELAY_MS / 2);
    w.registry.setConnected(GPU, '/p/a.sock', true);
    w.clock.increment(DRIVER_WIPE_DELAY_MS);
    expect(w.wipes).toEqual([]);

    w.registry.setConnected(GPU, '/p/a.sock', false);
    w.registry.add(plugin('/p/b.sock'));
    w.clock.increment(DRIVER_WIPE_DELAY_MS);
    expect(w.wipes).toEqual([GPU]);
    w.finish();
    await settle();
    w.stop();
  });

  it('stopped, wipes nothing more', () => {
    const w = world();
    w.connect('/p/a.sock');
    w.registry.remove(GPU, '/p/a.sock');
    w.stop();
    w.clock.increment(DRIVER_WIPE_DELAY_MS);
    expect(w.wipes).toEqual([]);
  });
});
