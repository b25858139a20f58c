import { describe, expect, it } from 'vitest';
import { nodeSideSettings } from '../../../src/domain/node-status/node-side-settings.js';

describe('nodeSideSettings', () => {
  it('takes the Go defaults when nothing is set', () => {
    expect(nodeSideSettings({}, {})).toEqual({
      qps: 50, burst: 100, eventQps: 50, eventBurst: 100, heartbeatTimeoutMs: 10_000, updateFrequencyMs: 10_000, reportFrequencyMs: 300_000,
      leaseDurationSeconds: 40, maxImages: 50, kubeletPort: 10250, registerNode: true, nodeLabels: {}, registerWithTaints: [],
      registerSchedulable: true, enableControllerAttachDetach: true, externalCloudProvider: false,
    });
  });

  it('reads durations, the heartbeat timeout bound by the lease, and the registration flags', () => {
    const s = nodeSideSettings(
      { nodeStatusUpdateFrequency: '1m0s', nodeLeaseDurationSeconds: 20, nodeStatusReportFrequency: '1m', registerWithTaints: [{ key: 'k', effect: 'NoSchedule' }] },
      { nodeLabels: { a: 'b' }, registerSchedulable: false, cloudProvider: 'external' },
    );
    expect(s).toMatchObject({ updateFrequencyMs: 60_000, heartbeatTimeoutMs: 20_000, reportFrequencyMs: 60_000, nodeLabels: { a: 'b' }, registerSchedulable: false, externalCloudProvider: true });
    expect(s.registerWithTaints).toEqual([{ key: 'k', effect: 'NoSchedule' }]);
  });
});
