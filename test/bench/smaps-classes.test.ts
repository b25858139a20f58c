import { describe, expect, it } from 'vitest';
import { parseSmaps, processSmapsClasses, smapsClasses } from '../../bench/smaps-classes.js';

/** One smaps entry: the header line and the Rss line smaps-classes reads (the others are skipped). */
const entry = (range: string, perms: string, path: string, rssKiB: number) =>
  `${range} ${perms} 00000000 00:00 0 ${path}\nSize: 4 kB\nRss: ${rssKiB} kB\nPss: ${rssKiB} kB\n`;

describe('smaps-classes', () => {
  it("tells the main heap, another thread's arena, file pages and the rest apart", () => {
    const text = [
      entry('555555554000-555555556000', 'r-xp', '/usr/bin/node', 2048),
      entry('555555600000-555555700000', 'rw-p', '[heap]', 1024),
      // An arena at a 64 MiB boundary: 3 MiB in use, the rest of its 64 MiB inaccessible.
      entry('7f0004000000-7f0004300000', 'rw-p', '', 3072),
      entry('7f0004300000-7f0008000000', '---p', '', 0),
      // The same shape off the boundary is not an arena (V8's pages, say).
      entry('7f0008100000-7f0008400000', 'rw-p', '', 512),
      entry('7f0008400000-7f000c100000', '---p', '', 0),
      entry('7ffc00000000-7ffc00021000', 'rw-p', '[stack]', 128),
    ].join('');
    expect(parseSmaps(text)).toHaveLength(7);
    expect(smapsClasses(parseSmaps(text))).toEqual({ file: 2, brk: 1, arenas: 3, otherAnon: 0.6 });
  });

  it('classes this process, whose file pages are at least node itself, and none for a process that is gone', () => {
    const classes = processSmapsClasses(process.pid)!;
    expect(classes.file).toBeGreaterThan(5);
    expect(classes.brk + classes.arenas + classes.otherAnon).toBeGreaterThan(5);
    expect(processSmapsClasses(2 ** 22 + 1)).toBeUndefined();
  });
});
