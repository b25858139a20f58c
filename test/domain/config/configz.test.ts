import { describe, expect, it } from 'vitest';
import { MASKED, configzBody, maskForConfigz } from '../../../src/domain/config/configz.js';
import { applyKubeletConfigurationDefaults } from '../../../src/domain/config/defaults.js';
import { resolveFeatureGates } from '../../../src/domain/config/feature-gates.js';

describe('maskForConfigz', () => {
  const cfg = applyKubeletConfigurationDefaults(
    { staticPodURL: 'https://m.example/pods', staticPodURLHeader: { Authorization: ['Bearer s3cret'], 'X-Team': ['a', 'b'] } },
    resolveFeatureGates().gates,
  );

  it('replaces every staticPodURLHeader value with <masked>, as the Go kubelet does', () => {
    const masked = maskForConfigz(cfg);
    expect(masked.staticPodURLHeader).toEqual({ Authorization: [MASKED], 'X-Team': [MASKED] });
    expect(JSON.stringify(masked)).not.toContain('s3cret');
    expect(masked.staticPodURL).toBe('https://m.example/pods');
  });

  it('leaves the original untouched', () => {
    maskForConfigz(cfg);
    expect(cfg.staticPodURLHeader.Authorization).toEqual(['Bearer s3cret']);
  });

  it('wraps the masked configuration under kubeletconfig for /configz', () => {
    expect(configzBody(cfg, resolveFeatureGates().gates, []).kubeletconfig.staticPodURLHeader.Authorization).toEqual([MASKED]);
  });
});
