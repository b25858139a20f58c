import { describe, expect, it } from 'vitest';
import { countCpuInfoProcessors, goArch, goOs, parseMemTotalBytes, parseOsReleasePrettyName } from '../../../src/domain/node/machine-info-parsers.js';

const CPUINFO_X86 = `processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) CPU
core id\t\t: 0

processor\t: 1
vendor_id\t: GenuineIntel
core id\t\t: 1

processor\t: 2
vendor_id\t: GenuineIntel

`;

const CPUINFO_S390X = `vendor_id       : IBM/S390
# processors    : 2
bogomips per cpu: 3241.00
processor 0: version = FF,  identification = 0133E8,  machine = 2964
processor 1: version = FF,  identification = 0133E8,  machine = 2964
`;

describe('countCpuInfoProcessors', () => {
  it('counts processor entries', () => {
    expect(countCpuInfoProcessors(CPUINFO_X86)).toBe(3);
  });

  it('finds none in formats without "processor :" lines (the adapter then falls back)', () => {
    expect(countCpuInfoProcessors(CPUINFO_S390X)).toBe(0);
  });
});

describe('parseMemTotalBytes', () => {
  it('reads MemTotal in KiB as bytes', () => {
    expect(parseMemTotalBytes('MemTotal:        8039712 kB\nMemFree:         1234 kB\n')).toBe(8039712 * 1024);
  });

  it('returns null without MemTotal', () => {
    expect(parseMemTotalBytes('MemFree:         1234 kB\n')).toBeNull();
  });
});

describe('parseOsReleasePrettyName', () => {
  it.each([
    ['NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n', 'Debian GNU/Linux 12 (bookworm)'],
    ["PRETTY_NAME='Alpine Linux v3.20'\n", 'Alpine Linux v3.20'],
    ['PRETTY_NAME=Fedora\n', 'Fedora'],
    ['PRETTY_NAME="Say \\"hi\\""\n', 'Say "hi"'],
  ])('reads %j', (text, expected) => {
    expect(parseOsReleasePrettyName(text)).toBe(expected);
  });

  it('returns null when PRETTY_NAME is missing or empty', () => {
    expect(parseOsReleasePrettyName('NAME=Linux\n')).toBeNull();
    expect(parseOsReleasePrettyName('PRETTY_NAME=""\n')).toBeNull();
  });
});

describe('goArch / goOs', () => {
  it.each([
    ['x64', 'amd64'],
    ['arm64', 'arm64'],
    ['ia32', '386'],
    ['ppc64', 'ppc64le'],
    ['s390x', 's390x'],
  ])('maps Node arch %s to GOARCH %s', (node, go) => {
    expect(goArch(node)).toBe(go);
  });

  it('maps platforms to GOOS', () => {
    expect(goOs('linux')).toBe('linux');
    expect(goOs('win32')).toBe('windows');
  });
});
