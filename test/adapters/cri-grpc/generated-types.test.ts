import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_TYPES_CONVERSION } from '../../../src/adapters/proto-service.js';

/** The flags `npm run generate` passes to proto-loader-gen-types. */
function generateFlags(): Set<string> {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  return new Set((pkg.scripts.generate ?? '').split(/\s+/).filter((word) => word.startsWith('--')));
}

describe('npm run generate', () => {
  // The generated types describe what the codec hands out only while both are made with the same options.
  it('generates the CRI types with the options the CRI codec converts with', () => {
    const flags = generateFlags();
    const o = GENERATED_TYPES_CONVERSION;
    // The descriptor keeps the proto's field names (scripts/cri-descriptor.mjs, descriptor-codec.test.ts).
    expect(flags.has('--keepCase')).toBe(true);
    expect(flags.has('--longs=String')).toBe(o.longs === String);
    expect(flags.has('--enums=String')).toBe(o.enums === String);
    expect(flags.has('--defaults')).toBe(o.defaults === true);
    expect(flags.has('--oneofs')).toBe(o.oneofs === true);
    expect([...flags].filter((f) => f.startsWith('--bytes') || f.startsWith('--arrays') || f.startsWith('--objects') || f === '--json')).toEqual([]);
  });
});
