import { describe, expect, it } from 'vitest';
import { KERNEL_TUNABLES, kernelTunablesError, parseSysctlValue, type TunableReading } from '../../../src/domain/node/kernel-tunables.js';

const asExpected = (): TunableReading[] => KERNEL_TUNABLES.map((t) => ({ ...t, value: t.expected }));

describe('the kernel tunables protectKernelDefaults checks', () => {
  it('are Go\'s six, with its values', () => {
    expect(Object.fromEntries(KERNEL_TUNABLES.map((t) => [t.flag, t.expected]))).toEqual({
      'vm/overcommit_memory': 1, 'vm/panic_on_oom': 0, 'kernel/panic': 10, 'kernel/panic_on_oops': 1,
      'kernel/keys/root_maxkeys': 1_000_000, 'kernel/keys/root_maxbytes': 25_000_000,
    });
  });

  it('find nothing wrong when every value is the expected one', () => {
    expect(kernelTunablesError(asExpected())).toBeUndefined();
  });

  it('word a single difference as Go\'s message alone', () => {
    const readings = asExpected().map((r) => (r.flag === 'vm/panic_on_oom' ? { ...r, value: 1 } : r));
    expect(kernelTunablesError(readings)?.message).toBe('invalid kernel flag: vm/panic_on_oom, expected value: 0, actual value: 1');
  });

  it('aggregate several as Go\'s utilerrors does, an unreadable tunable among them', () => {
    const readings = asExpected().map((r): TunableReading => {
      if (r.flag === 'kernel/panic_on_oops') return { ...r, value: 0 };
      if (r.flag === 'kernel/keys/root_maxkeys') return { ...r, error: 'open /proc/sys/kernel/keys/root_maxkeys: no such file or directory' };
      return r;
    });
    expect(kernelTunablesError(readings)?.message).toBe(
      '[invalid kernel flag: kernel/panic_on_oops, expected value: 1, actual value: 0, open /proc/sys/kernel/keys/root_maxkeys: no such file or directory]',
    );
  });
});

describe('parseSysctlValue', () => {
  it('reads a value with its trailing newline and blanks, as Go trims them', () => {
    expect(parseSysctlValue('25000000\n')).toBe(25_000_000);
    expect(parseSysctlValue(' -1 \n')).toBe(-1);
  });

  it('refuses what is not one integer, in Atoi\'s words', () => {
    expect(() => parseSysctlValue('1\t2\n')).toThrow('strconv.Atoi: parsing "1\\t2": invalid syntax');
    expect(() => parseSysctlValue('')).toThrow('strconv.Atoi: parsing "": invalid syntax');
  });
});
