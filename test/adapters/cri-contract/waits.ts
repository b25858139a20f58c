/** Polling and CRI log reading for the contract suite (runtimes report state asynchronously). */
import { readFile } from 'node:fs/promises';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms)); // the poll period of waitFor and the suites' samplers, never a wait for an outcome

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    }
    await sleep(everyMs); // the poll period: the runtime offers no event for these conditions
  }
}

export interface CriLogLine { time: string; stream: 'stdout' | 'stderr'; tag: 'F' | 'P'; content: string }

/** `<RFC3339Nano> <stream> <F|P> <content>`: the CRI log format every runtime writes. */
export const CRI_LOG_LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})) (stdout|stderr) (F|P) (.*)$/;

/** Parses a CRI log file; a line that does not match the format throws. Missing file = no lines. */
export async function readCriLog(path: string): Promise<CriLogLine[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return text.split('\n').filter((l) => l !== '').map((line) => {
    const m = CRI_LOG_LINE.exec(line);
    if (!m) throw new Error(`not a CRI log line: ${JSON.stringify(line)}`);
    return { time: m[1]!, stream: m[2] as 'stdout' | 'stderr', tag: m[3] as 'F' | 'P', content: m[4]! };
  });
}

export async function waitForLogLine(path: string, content: string, timeoutMs = 10_000): Promise<CriLogLine[]> {
  return waitFor(`log line ${JSON.stringify(content)} in ${path}`, async () => {
    const lines = await readCriLog(path);
    return lines.some((l) => l.content === content) ? lines : undefined;
  }, timeoutMs);
}
