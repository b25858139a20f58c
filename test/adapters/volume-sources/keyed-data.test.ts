import { describe, expect, it } from 'vitest';
import { configMapData, secretData } from '../../../src/adapters/volume-sources/keyed-data.js';

const meta = { name: 'x', namespace: 'ns' };

describe('secretData', () => {
  it('decodes base64 data into bytes, and stringData wins over data', () => {
    const binary = Buffer.from([0, 255, 10, 13]);
    const { data } = secretData({ metadata: meta, data: { user: Buffer.from('admin').toString('base64'), raw: binary.toString('base64'), both: 'b2xk' }, stringData: { both: 'new' } });
    expect(data['user']!.toString()).toBe('admin');
    expect(data['raw']).toEqual(binary);
    expect(data['both']!.toString()).toBe('new');
  });

  it('answers no keys for a Secret without data', () => {
    expect(secretData({ metadata: meta })).toEqual({ data: {} });
  });
});

describe('configMapData', () => {
  it('keeps data as UTF-8 and decodes binaryData from base64', () => {
    const { data } = configMapData({ metadata: meta, data: { 'app.conf': 'größe=1\n' }, binaryData: { blob: Buffer.from([1, 2, 3]).toString('base64') } });
    expect(data['app.conf']).toEqual(Buffer.from('größe=1\n', 'utf8'));
    expect(data['blob']).toEqual(Buffer.from([1, 2, 3]));
  });

  it('decodes afresh on each call, so changing one answer changes no other', () => {
    const object = { metadata: meta, data: { k: 'v' } };
    const first = configMapData(object);
    first.data['k']![0] = 0x58;
    expect(configMapData(object).data['k']!.toString()).toBe('v');
  });
});
