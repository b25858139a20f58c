import { describe, expect, it } from 'vitest';
import { absolutePath, withAbsoluteConfigPaths, withAbsoluteFlags } from '../../../src/domain/config/absolute-paths.js';
import { parseCommandLine } from '../../../src/domain/config/command-line.js';
import { buildEffectiveConfig } from '../../../src/domain/config/effective.js';

describe('absolutePath', () => {
  it('joins a relative path to the working directory, folding . and ..', () => {
    expect(absolutePath('.kubelet-ts/root', '/home/me/kubelet-ts')).toBe('/home/me/kubelet-ts/.kubelet-ts/root');
    expect(absolutePath('./a/../b/', '/w')).toBe('/w/b/');
    expect(absolutePath('../../..', '/w')).toBe('/');
  });

  it('leaves absolute paths and the empty path (a setting left off) as they are', () => {
    expect(absolutePath('/var/lib/kubelet', '/w')).toBe('/var/lib/kubelet');
    expect(absolutePath('', '/w')).toBe('');
  });
});

describe('the command line\'s paths', () => {
  it('are absolute against the working directory: the README\'s npm start', () => {
    const parsed = withAbsoluteFlags(parseCommandLine(['--config=examples/kubelet-config.yaml', '--root-dir=.kubelet-ts/root', '--lock-file=.kubelet-ts/kubelet.lock']), '/src/kts');
    expect(parsed.flags).toMatchObject({
      kubeletConfigFile: '/src/kts/examples/kubelet-config.yaml', rootDirectory: '/src/kts/.kubelet-ts/root', lockFilePath: '/src/kts/.kubelet-ts/kubelet.lock',
      // Under the root of its own: another kubelet's device plugin sockets are never touched.
      devicePluginsDir: '/src/kts/.kubelet-ts/root/device-plugins',
      certDirectory: '/var/lib/kubelet/pki', kubeconfig: '',
    });
  });

  it('keep Go\'s device plugin directory at Go\'s root, and a --device-plugins-dir given', () => {
    expect(withAbsoluteFlags(parseCommandLine([]), '/w').flags.devicePluginsDir).toBe('/var/lib/kubelet/device-plugins');
    expect(withAbsoluteFlags(parseCommandLine(['--root-dir=/r', '--device-plugins-dir=dp']), '/w').flags.devicePluginsDir).toBe('/w/dp');
  });
});

describe('the configuration\'s paths', () => {
  it('are absolute: a relative --config\'s fields, which start at its directory, and a flag\'s', () => {
    const parsed = parseCommandLine(['--config=examples/kubelet-config.yaml', '--tls-cert-file=pki/serving.crt']);
    const built = buildEffectiveConfig({ parsed, file: { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', staticPodPath: 'manifests', podLogsDir: '/logs' } });
    const config = withAbsoluteConfigPaths(built.config, '/src/kts');
    expect(config.staticPodPath).toBe('/src/kts/examples/manifests');
    expect(config.tlsCertFile).toBe('/src/kts/pki/serving.crt');
    expect(config.podLogsDir).toBe('/logs');
    expect(built.config.staticPodPath).toBe('examples/manifests');
  });
});
