import { describe, expect, it } from 'vitest';
import { summaryJson } from '../../../src/domain/stats/summary-json.js';

describe('summaryJson', () => {
  it('writes bigints as plain JSON numbers with every digit', () => {
    const text = summaryJson({ node: { nodeName: 'n', startTime: 't', cpu: { time: 't', usageCoreNanoSeconds: 18446744073709551615n } }, pods: [] });
    expect(text).toBe('{"node":{"nodeName":"n","startTime":"t","cpu":{"time":"t","usageCoreNanoSeconds":18446744073709551615}},"pods":[]}');
    expect(JSON.parse(text).node.cpu.usageCoreNanoSeconds).toBeTypeOf('number');
  });
});
