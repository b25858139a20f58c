import { afterEach, describe, expect, it } from 'vitest';
import { labWatch, type WatchEvent } from '../../bench/lab-watch.js';
import { fakeLab as startFakeLab } from '../support/fake-lab.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function fakeLab(answer: (url: string, res: import('node:http').ServerResponse) => void) {
  const lab = await startFakeLab(answer);
  cleanups.push(lab.close);
  return lab;
}

describe('labWatch', () => {
  it('asks for a watch and hands over each event whole, however the stream is cut', async () => {
    let asked = '';
    let answer: import('node:http').ServerResponse | undefined;
    const lab = await fakeLab((url, res) => {
      asked = url;
      answer = res;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"type":"ADDED","object":{"metadata":{"na');
      res.write('me":"p0"}}}\n{"type":"MODIFIED","object":{"metadata":{"name":"p0"}}}\n{"type":"DEL');
    });
    const events: WatchEvent<{ metadata: { name: string } }>[] = [];
    const watch = await labWatch<{ metadata: { name: string } }>(lab, '/api/v1/namespaces/ns/pods?labelSelector=a%3Db', (e) => events.push(e));
    // The two whole events are read, the third still cut in two; only then does its end arrive, as a
    // chunk of its own.
    await expect.poll(() => events.length).toBe(2);
    answer!.write('ETED","object":{"metadata":{"name":"p1"}}}\n');
    await expect.poll(() => events.length).toBe(3);
    watch.stop();
    expect(asked).toBe('/api/v1/namespaces/ns/pods?labelSelector=a%3Db&watch=1');
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(['ADDED p0', 'MODIFIED p0', 'DELETED p1']);
  });

  it('fails naming the path and the status when the API server refuses the watch', async () => {
    const lab = await fakeLab((_url, res) => {
      res.writeHead(403);
      res.end('{"kind":"Status"}');
    });
    await expect(labWatch(lab, '/api/v1/pods', () => undefined)).rejects.toThrow('watch /api/v1/pods: 403');
  });
});
