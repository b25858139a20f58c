import { describe, expect, it } from 'vitest';
import { createDraDriverRegistry } from '../../../src/adapters/dra/dra-driver-registry.js';

const GPU = 'gpu.example.com';
const old = { driverName: GPU, endpoint: '/p/gpu/old.sock', service: 'v1beta1.DRAPlugin' } as const;
const next = { driverName: GPU, endpoint: '/p/gpu/new.sock', service: 'v1.DRAPlugin' } as const;
const net = { driverName: 'net.example.com', endpoint: '/p/net/dra.sock', service: 'v1.DRAPlugin' } as const;

describe('createDraDriverRegistry', () => {
  it('keeps several plugins of a driver and gives the one registered last', () => {
    const r = createDraDriverRegistry();
    r.add(old);
    r.add(next);
    expect(r.get(GPU)).toEqual(next);
    r.remove(GPU, next.endpoint);
    expect(r.get(GPU)).toEqual(old);
  });

  it('refuses a plugin on an endpoint its driver has already, with Go\'s message', () => {
    const r = createDraDriverRegistry();
    r.add(old);
    expect(() => r.add({ ...old, service: 'v1.DRAPlugin' })).toThrow(expect.objectContaining({
      code: 'KLT_ERR_PLUGIN_REGISTRATION', message: `endpoint ${old.endpoint} already registered for DRA driver plugin ${GPU}`,
    }));
    expect(r.list()).toEqual([old]);
  });

  it('lists drivers in name order, each driver\'s plugins as they came, and forgets a driver whose last plugin left', () => {
    const r = createDraDriverRegistry();
    r.add(net);
    r.add(old);
    r.add(next);
    expect(r.list()).toEqual([old, next, net]);
    r.remove(GPU, old.endpoint);
    r.remove(GPU, next.endpoint);
    r.remove(GPU, next.endpoint);
    expect(r.get(GPU)).toBeUndefined();
    expect(r.list()).toEqual([net]);
  });

  it('tells its listeners of each plugin added or removed, naming the driver, until they unsubscribe', () => {
    const r = createDraDriverRegistry();
    const heard: string[] = [];
    const unsubscribe = r.onChange((driver) => heard.push(`${driver}: ${r.get(driver)?.endpoint ?? 'none'}`));
    r.add(old);
    r.add(net);
    r.remove(GPU, old.endpoint);
    r.remove(GPU, old.endpoint);
    unsubscribe();
    r.add(next);
    expect(heard).toEqual([`${GPU}: ${old.endpoint}`, `net.example.com: ${net.endpoint}`, `${GPU}: none`]);
  });

  it('gives the last connected plugin before a later one not connected, and counts a driver usable while one of its plugins is connected, as Go', () => {
    const r = createDraDriverRegistry();
    r.add(old);
    r.add(next);
    expect(r.usable(GPU)).toBe(false);
    r.setConnected(GPU, old.endpoint, true);
    expect(r.get(GPU)).toEqual(old);
    expect(r.usable(GPU)).toBe(true);
    r.setConnected(GPU, next.endpoint, true);
    expect(r.get(GPU)).toEqual(next);
    r.setConnected(GPU, next.endpoint, false);
    r.setConnected(GPU, old.endpoint, false);
    expect(r.get(GPU)).toEqual(next);
    expect(r.usable(GPU)).toBe(false);
    expect(r.usable('net.example.com')).toBe(false);
  });

  it('tells its listeners of a connection that came up or went down, once per change, and ignores a plugin not registered', () => {
    const r = createDraDriverRegistry();
    r.add(old);
    const heard: string[] = [];
    r.onChange((driver) => heard.push(`${driver}: ${r.usable(driver)}`));
    r.setConnected(GPU, old.endpoint, true);
    r.setConnected(GPU, old.endpoint, true);
    r.setConnected(GPU, next.endpoint, true);
    r.setConnected(GPU, old.endpoint, false);
    expect(heard).toEqual([`${GPU}: true`, `${GPU}: false`]);
  });
});
