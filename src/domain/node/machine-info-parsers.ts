/**
 * Pure parsers for the host files behind run.machineInfo (the adapter reads the files). They
 * follow cAdvisor's readings of the same files.
 */

/**
 * Number of `processor` entries in /proc/cpuinfo (the online logical CPUs). cAdvisor counts CPUs
 * from sysfs topology, which agrees on x86 and arm64; formats without `processor :` lines (s390x)
 * give 0, and the adapter falls back to os.availableParallelism().
 */
export function countCpuInfoProcessors(cpuinfo: string): number {
  return cpuinfo.split('\n').filter((line) => /^processor\s*:/.test(line)).length;
}

/** MemTotal from /proc/meminfo in bytes (the file says kB and means KiB), or null when absent. */
export function parseMemTotalBytes(meminfo: string): number | null {
  const match = /^MemTotal:\s*([0-9]+)\s*kB\s*$/m.exec(meminfo);
  return match?.[1] === undefined ? null : Number(match[1]) * 1024;
}

/**
 * PRETTY_NAME from an os-release file (shell-style assignment: the value may be double- or
 * single-quoted, with backslash escapes inside double quotes), or null when absent or empty.
 */
export function parseOsReleasePrettyName(osRelease: string): string | null {
  for (const line of osRelease.split('\n')) {
    const match = /^\s*PRETTY_NAME=(.*)$/.exec(line);
    if (!match?.[1]) continue;
    let value = match[1].trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      value = value.slice(1, -1).replace(/\\(["\\$`])/g, '$1');
    } else if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) {
      value = value.slice(1, -1);
    }
    return value === '' ? null : value;
  }
  return null;
}

/** Node's `process.arch` → Go's GOARCH, the architecture name Kubernetes reports. */
const GOARCH: Record<string, string> = {
  x64: 'amd64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: '386',
  ppc64: 'ppc64le', // Node on Linux ppc64 is little-endian: Kubernetes builds ppc64le only
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  mips: 'mips',
  mipsel: 'mipsle',
};

export function goArch(nodeArch: string): string {
  return GOARCH[nodeArch] ?? nodeArch;
}

/** Go's GOOS for Node's `process.platform` (they agree except win32). */
export function goOs(nodePlatform: string): string {
  return nodePlatform === 'win32' ? 'windows' : nodePlatform;
}
