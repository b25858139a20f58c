import { describe, expect, it } from 'vitest';
import { chooseDraService, DRA_PLUGIN_SERVICES } from '../../../src/domain/dra/plugin-services.js';

describe('chooseDraService', () => {
  it.each([
    [['v1.DRAPlugin'], 'v1.DRAPlugin'],
    [['v1beta1.DRAPlugin'], 'v1beta1.DRAPlugin'],
    [['v1.DRAPlugin', 'v1beta1.DRAPlugin'], 'v1.DRAPlugin'],
    // The plugin's order decides, as in Go's validateSupportedServices.
    [['v1beta1.DRAPlugin', 'v1.DRAPlugin'], 'v1beta1.DRAPlugin'],
    [['v1alpha1.NodeHealth', 'v1beta1.DRAPlugin'], 'v1beta1.DRAPlugin'],
  ])('takes the first service of %j the kubelet calls: %s', (supported, service) => {
    expect(chooseDraService(supported)).toEqual({ service });
  });

  it('refuses an empty list with Go\'s message', () => {
    expect(chooseDraService([])).toEqual({ error: 'empty list of supported gRPC services (aka supported versions)' });
  });

  it('refuses a list of services the kubelet does not call with Go\'s message, both lists quoted', () => {
    expect(chooseDraService(['1.0.0', 'v1alpha4.Node'])).toEqual({
      error: 'none of services supported by the plugin (["1.0.0" "v1alpha4.Node"]) are supported by the kubelet (["v1.DRAPlugin" "v1beta1.DRAPlugin"])',
    });
  });

  it('keeps the refusal short for a hostile list', () => {
    const refused = chooseDraService(Array.from({ length: 100_000 }, () => 'x'.repeat(1_000)));
    expect('error' in refused && refused.error.length).toBeLessThan(2_000);
  });

  it('lists v1 before v1beta1, newest first', () => {
    expect(DRA_PLUGIN_SERVICES).toEqual(['v1.DRAPlugin', 'v1beta1.DRAPlugin']);
  });
});
