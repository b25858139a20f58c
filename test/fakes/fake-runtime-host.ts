/**
 * In-memory RuntimeHost (src/ports/runtime-host.ts): files are a map by path, directories a set,
 * GETs are recorded and answered with `httpStatus` (or rejected with `failNext`).
 */
import type { RuntimeHost } from '../../src/ports/runtime-host.js';

export class FakeRuntimeHost implements RuntimeHost {
  readonly directories = new Set<string>();
  readonly files = new Map<string, string>();
  readonly gets: { url: string; headers: Record<string, string> }[] = [];
  httpStatus = 200;
  selinux = false;
  appArmor = false;
  failNext?: Error | undefined;

  constructor(private readonly memoryBytes = 8 * 1024 ** 3) {}

  async makeDirectory(path: string): Promise<void> {
    this.directories.add(path);
  }

  async readTextFile(path: string): Promise<string> {
    const text = this.files.get(path);
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return text;
  }

  async listFiles(dir: string): Promise<string[]> {
    const prefix = dir.endsWith('/') ? dir : `${dir}/`;
    return [...this.files.keys()].filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/')).map((p) => p.slice(prefix.length));
  }

  httpGet = async (url: string, headers: Record<string, string>): Promise<number> => {
    this.gets.push({ url, headers });
    const err = this.failNext;
    if (err) {
      this.failNext = undefined;
      throw err;
    }
    return this.httpStatus;
  };

  memoryCapacityBytes(): number {
    return this.memoryBytes;
  }

  selinuxEnabled(): boolean {
    return this.selinux;
  }

  appArmorEnabled(): boolean {
    return this.appArmor;
  }
}
