import { describe, expect, it } from 'vitest';
import { createLiveState } from '../../../src/actors/phases/live-state.js';
import { settings } from '../../../src/actors/phases/settings.js';
import { parseCommandLine } from '../../../src/domain/config/command-line.js';

const debugAddress = (argv: string[]) => {
  const live = createLiveState();
  live.parsed.set(parseCommandLine(argv));
  return settings.debugAddress(live);
};

describe('the debug server address', () => {
  it('is off in cluster mode unless --debug-address is given', () => {
    expect(debugAddress(['--kubeconfig=/etc/kubernetes/kubelet.conf'])).toBe('');
    expect(debugAddress(['--kubeconfig=/etc/kubernetes/kubelet.conf', '--debug-address=127.0.0.1:10260'])).toBe('127.0.0.1:10260');
    expect(debugAddress(['--kubeconfig=/etc/kubernetes/kubelet.conf', '--debug-address=127.0.0.1:4000'])).toBe('127.0.0.1:4000');
  });

  it('keeps its default standalone', () => {
    expect(debugAddress([])).toBe('127.0.0.1:10260');
    expect(debugAddress(['--debug-address='])).toBe('');
  });
});
