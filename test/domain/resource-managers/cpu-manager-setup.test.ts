import { describe, expect, it } from 'vitest';
import { cpuManagerInventory, reservationsWithReservedCpus } from '../../../src/domain/resource-managers/cpu-manager-setup.js';
import { machine } from './topologies.js';

const base = { policy: 'static', policyOptions: {}, betaOptionsGate: true, reservedSystemCPUs: '', topology: machine(2, 4, 2) };

describe("the CPU manager's construction", () => {
  it('has no inventory with the none policy', () => {
    expect(cpuManagerInventory({ ...base, policy: 'none' })).toEqual({ ok: true, inventory: null });
  });

  it('reserves the CPUs --reserved-cpus names', () => {
    expect(cpuManagerInventory({ ...base, reservedSystemCPUs: '3,11' })).toMatchObject({ ok: true, inventory: { reserved: [3, 11] } });
  });

  it('reserves whole low cores for the kube and system reserved cpu, rounded up', () => {
    expect(cpuManagerInventory({ ...base, kubeReservedCpu: '500m', systemReservedCpu: '1' })).toMatchObject({ ok: true, inventory: { reserved: [0, 8] } });
  });

  it("refuses the static policy without a reservation, with Go's message", () => {
    expect(cpuManagerInventory(base)).toEqual({ ok: false, message: '[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero' });
  });

  it('takes the policy options', () => {
    expect(cpuManagerInventory({ ...base, reservedSystemCPUs: '0', policyOptions: { 'full-pcpus-only': 'true', 'distribute-cpus-across-numa': 'True' } }))
      .toMatchObject({ ok: true, inventory: { options: { fullPcpusOnly: true, distributeCpusAcrossNuma: true } } });
  });

  it.each([
    [{ 'no-such-option': 'true' }, true, 'new static policy error: unknown CPU Manager Policy option: "no-such-option"'],
    [{ 'full-pcpus-only': 'yes' }, true, 'new static policy error: bad value for option "full-pcpus-only": strconv.ParseBool: parsing "yes": invalid syntax'],
    [{ 'full-pcpus-only': 'true' }, false, 'new static policy error: CPU Manager Policy Beta-level Options not enabled, but option "full-pcpus-only" provided'],
    [{ 'align-by-socket': 'true' }, true, 'new static policy error: CPU Manager Policy option "align-by-socket" is not supported by kubelet-ts'],
  ])('refuses the options %j (beta gate %s)', (policyOptions, gate, message) => {
    expect(cpuManagerInventory({ ...base, reservedSystemCPUs: '0', policyOptions, betaOptionsGate: gate })).toEqual({ ok: false, message });
  });

  it('refuses a reservation larger than the machine', () => {
    expect(cpuManagerInventory({ ...base, topology: machine(1, 2, 1), systemReservedCpu: '3' })).toEqual({
      ok: false, message: 'new static policy error: [cpumanager] unable to reserve the required amount of CPUs (size of  did not equal 3)',
    });
  });

  it('lets --reserved-cpus supersede the kube and system reserved cpu for allocatable', () => {
    expect(reservationsWithReservedCpus({ cpu: '1', memory: '1Gi' }, { cpu: '2' }, '0-2')).toEqual({ kubeReserved: { memory: '1Gi' }, systemReserved: { cpu: '3' } });
    expect(reservationsWithReservedCpus({ cpu: '1' }, {}, '')).toEqual({ kubeReserved: { cpu: '1' }, systemReserved: {} });
  });
});
