import { describe, expect, it } from 'vitest';
import { cpuStateRefusal, decodeCpuState, encodeCpuState, staticStateProblem } from '../../../src/domain/resource-managers/cpu-state-file.js';

// Written by the Go kubelet v1.26.0 (static policy, reservedSystemCPUs "0", a Guaranteed pod with cpu: 1) on a 2-CPU machine.
const GO_FILE = '{"policyName":"static","defaultCpuSet":"0","entries":{"4ba4456c75319f2903029e138037eb24":{"main":"1"}},"checksum":3700061779}';

describe('cpu_manager_state', () => {
  it('is written byte for byte as the Go kubelet writes it, checksum included', () => {
    expect(encodeCpuState({ policyName: 'static', defaultCpuSet: [0], entries: { '4ba4456c75319f2903029e138037eb24': { main: [1] } } })).toBe(GO_FILE);
  });

  it('reads what the Go kubelet wrote', () => {
    expect(decodeCpuState(GO_FILE, 'static')).toEqual({ policyName: 'static', defaultCpuSet: [0], entries: { '4ba4456c75319f2903029e138037eb24': { main: [1] } } });
  });

  it('leaves entries out when there are none, and reads such a file back', () => {
    const text = encodeCpuState({ policyName: 'none', defaultCpuSet: [], entries: {} });
    expect(JSON.parse(text)).toEqual({ policyName: 'none', defaultCpuSet: '', checksum: expect.any(Number) });
    expect(decodeCpuState(text, 'none')).toEqual({ policyName: 'none', defaultCpuSet: [], entries: {} });
  });

  it('refuses a file whose checksum does not match', () => {
    expect(() => decodeCpuState(GO_FILE.replace('"main":"1"', '"main":"0"'), 'static')).toThrow('checkpoint is corrupted');
  });

  it("refuses a file of another policy with Go's message", () => {
    expect(() => decodeCpuState(GO_FILE, 'none')).toThrow('configured policy "none" differs from state checkpoint policy "static"');
    expect(cpuStateRefusal('configured policy "none" differs from state checkpoint policy "static"', '/var/lib/kubelet/cpu_manager_state')).toBe(
      'start cpu manager error: could not restore state from checkpoint: configured policy "none" differs from state checkpoint policy "static", please drain this node and delete the CPU manager checkpoint file "/var/lib/kubelet/cpu_manager_state" before restarting Kubelet',
    );
  });

  it('accepts a zero checksum (Go’s old file backend)', () => {
    expect(decodeCpuState('{"policyName":"static","defaultCpuSet":"0-1","checksum":0}', 'static').defaultCpuSet).toEqual([0, 1]);
  });

  it.each([
    [{ defaultCpuSet: [], entries: {} }, null],
    [{ defaultCpuSet: [0], entries: { p: { c: [1] } } }, null],
    [{ defaultCpuSet: [], entries: { p: { c: [1] } } }, 'default cpuset cannot be empty'],
    [{ defaultCpuSet: [1], entries: { p: { c: [0] } } }, 'not all reserved cpus: "0" are present in defaultCpuSet: "1"'],
    [{ defaultCpuSet: [0, 1], entries: { p: { c: [1] } } }, 'pod: p, container: c cpuset: "1" overlaps with default cpuset "0-1"'],
    [{ defaultCpuSet: [0], entries: {} }, 'current set of available CPUs "0-1" doesn\'t match with CPUs in state "0"'],
  ])('checks a static state against a 2-CPU machine with CPU 0 reserved: %j', (state, problem) => {
    expect(staticStateProblem({ policyName: 'static', ...state }, [0, 1], [0])).toBe(problem);
  });
});
