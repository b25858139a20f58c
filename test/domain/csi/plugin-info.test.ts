import { describe, expect, it } from 'vitest';
import { highestSupportedVersion, parseGenericVersion, validatePluginInfo, type PluginInfo } from '../../../src/domain/csi/plugin-info.js';

const SOCKET = '/var/lib/kubelet/plugins_registry/x-reg.sock';
const CSI: PluginInfo = { type: 'CSIPlugin', name: 'x.example.com', endpoint: '/var/lib/kubelet/plugins/x/csi.sock', supportedVersions: ['1.0.0'] };

describe('parseGenericVersion', () => {
  it.each([
    ['1.0.0', [1, 0, 0]], ['v1.5', [1, 5]], ['1.2.3-rc.1', [1, 2, 3]], ['1', null], ['x1.0', null], ['01.0', null], ['', null],
  ])('reads %j as %j', (text, version) => {
    expect(parseGenericVersion(text)).toEqual(version);
  });
});

describe('highestSupportedVersion', () => {
  it('takes the highest 1.x and skips versions above 1.x', () => {
    expect(highestSupportedVersion(['0.3.0', '1.2.0', '1.10.0', '2.0.0'])).toEqual({ version: [1, 10, 0] });
  });

  it('refuses a list whose highest is not 1.x, or that has nothing readable', () => {
    expect(highestSupportedVersion(['0.3.0'])).toEqual({ error: 'highest supported version reported by driver is 0.3.0, must be v1.x' });
    expect(highestSupportedVersion(['bogus'])).toMatchObject({ error: expect.stringContaining('could not find a highest supported version from versions ([bogus])') });
  });
});

describe('validatePluginInfo', () => {
  it('accepts a CSI 1.x plugin, its endpoint kept', () => {
    expect(validatePluginInfo(CSI, SOCKET)).toEqual({ ok: true, plugin: { name: 'x.example.com', endpoint: CSI.endpoint, versions: ['1.0.0'], highestVersion: '1.0.0' } });
  });

  it('takes the registration socket as the endpoint when the plugin gives none', () => {
    expect(validatePluginInfo({ ...CSI, endpoint: '' }, SOCKET)).toMatchObject({ ok: true, plugin: { endpoint: SOCKET } });
  });

  it('accepts a DRA plugin naming a DRAPlugin service the kubelet calls, its endpoint resolved', () => {
    const dra: PluginInfo = { type: 'DRAPlugin', name: 'gpu.example.com', endpoint: '', supportedVersions: ['v1beta1.DRAPlugin'] };
    expect(validatePluginInfo(dra, SOCKET)).toEqual({ ok: true, draPlugin: { name: 'gpu.example.com', endpoint: SOCKET, service: 'v1beta1.DRAPlugin' } });
  });

  it('refuses a DRA plugin naming no DRAPlugin service with Go\'s message, naming the driver and endpoint', () => {
    const dra: PluginInfo = { type: 'DRAPlugin', name: 'gpu.example.com', endpoint: '/var/lib/kubelet/plugins/gpu/dra.sock', supportedVersions: ['1.0.0'] };
    expect(validatePluginInfo(dra, SOCKET)).toEqual({
      ok: false,
      message: 'RegisterPlugin error -- plugin validation failed with err: invalid supported gRPC versions of DRA driver plugin gpu.example.com at endpoint /var/lib/kubelet/plugins/gpu/dra.sock: none of services supported by the plugin (["1.0.0"]) are supported by the kubelet (["v1.DRAPlugin" "v1beta1.DRAPlugin"])',
    });
  });

  it('refuses a type without a handler with Go\'s message', () => {
    expect(validatePluginInfo({ ...CSI, type: 'DevicePlugin' }, SOCKET)).toEqual({ ok: false, message: `RegisterPlugin error -- no handler registered for plugin type: DevicePlugin at socket ${SOCKET}` });
  });

  it('refuses versions Go does not support, naming the driver and endpoint', () => {
    const refused = validatePluginInfo({ ...CSI, supportedVersions: ['0.3.0'] }, SOCKET);
    expect(refused).toEqual({
      ok: false,
      message: `RegisterPlugin error -- plugin validation failed with err: validation failed for CSI Driver x.example.com at endpoint ${CSI.endpoint}: kubernetes.io/csi: ValidatePlugin for CSI driver "x.example.com" failed. None of the versions specified ["0.3.0"] are supported. err=highest supported version reported by driver is 0.3.0, must be v1.x`,
    });
  });

  it('refuses a long list of unsupported versions with a message of its first few and a count', () => {
    const refused = validatePluginInfo({ ...CSI, supportedVersions: Array.from({ length: 100_000 }, () => '2.0.0') }, SOCKET);
    expect(refused).toMatchObject({ ok: false, message: expect.stringContaining('None of the versions specified ["2.0.0" "2.0.0" "2.0.0" "2.0.0" "2.0.0" "2.0.0" "2.0.0" "2.0.0" …(99992 more)] are supported') });
    expect(refused.ok ? '' : refused.message.length).toBeLessThan(1024);
  });

  it('refuses a type without a handler naming only the start of a long type', () => {
    const refused = validatePluginInfo({ ...CSI, type: 'T'.repeat(1_000_000) }, SOCKET);
    expect(refused.ok ? '' : refused.message.length).toBeLessThan(1024);
  });

  it('refuses a second driver of a name registered with a version as high', () => {
    expect(validatePluginInfo(CSI, SOCKET, '1.0.0')).toMatchObject({ ok: false, message: expect.stringContaining('Another driver with the same name is already registered with a higher supported version: "1.0.0"') });
    expect(validatePluginInfo({ ...CSI, supportedVersions: ['1.5.0'] }, SOCKET, '1.0.0')).toMatchObject({ ok: true });
  });

  it('refuses an empty name and a relative endpoint', () => {
    expect(validatePluginInfo({ ...CSI, name: '' }, SOCKET)).toMatchObject({ ok: false, message: expect.stringContaining('empty name') });
    expect(validatePluginInfo({ ...CSI, endpoint: 'csi.sock' }, SOCKET)).toMatchObject({ ok: false, message: expect.stringContaining('"csi.sock" is not an absolute path') });
  });
});
