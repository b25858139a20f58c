import { pino } from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { createImageManager, type ImageManager } from '../../../src/actors/runtime-manager/image-manager.js';
import { KubeletError } from '../../../src/domain/errors.js';
import type { Container, Pod } from '../../../src/domain/pod/types.js';
import type { PodSandboxConfig } from '../../../src/ports/cri.js';
import { FakeCri } from '../../fakes/fake-cri.js';

const sandboxConfig: PodSandboxConfig = { metadata: { name: 'p', namespace: 'ns', uid: 'u', attempt: 0 } };
const pod: Pod = { metadata: { name: 'p', namespace: 'ns', uid: 'u', annotations: { team: 'a' } }, spec: { containers: [] } };

let now = 0;
let cri: FakeCri;
let images: ImageManager;

beforeEach(() => {
  now = 0;
  cri = new FakeCri();
  images = createImageManager({ cri, clock: { now: () => now, setTimeout: () => undefined, clearTimeout: () => undefined }, logger: pino({ level: 'silent' }) });
});

async function codeOf(container: Container): Promise<string | undefined> {
  return images.ensureImageExists(pod, container, sandboxConfig).then(() => undefined, (err: unknown) => (err as KubeletError).code);
}

describe('imageManager.ensureImageExists', () => {
  it('returns the present image id without pulling under IfNotPresent', async () => {
    const image = cri.addImage('app:1');
    await expect(images.ensureImageExists(pod, { name: 'c', image: 'app:1' }, sandboxConfig)).resolves.toEqual({ ref: image.id });
    expect(cri.calls).toEqual(['imageStatus app:1']);
  });

  it('asks for the image with the default tag and the pod annotations, and pulls under Always', async () => {
    await images.ensureImageExists(pod, { name: 'c', image: 'app' }, sandboxConfig);
    expect(cri.calls).toEqual(['imageStatus app:latest', 'pullImage app:latest']);
  });

  it.each<[string, Container, () => void, string]>([
    ['an invalid name', { name: 'c', image: 'Not Valid' }, () => undefined, 'KLT_ERR_IMAGE_NAME_INVALID'],
    ['a failing ImageStatus', { name: 'c', image: 'app:1' }, () => cri.failNext('imageStatus'), 'KLT_ERR_IMAGE_INSPECT'],
    ['Never with the image absent', { name: 'c', image: 'app:1', imagePullPolicy: 'Never' }, () => undefined, 'KLT_ERR_IMAGE_NEVER_PULL'],
    ['a failing pull', { name: 'c', image: 'app:1' }, () => cri.failNext('pullImage', new KubeletError('KLT_ERR_CRI_FAILED', 'no such host')), 'KLT_ERR_IMAGE_PULL'],
  ])('fails %s with its code', async (_, container, arrange, code) => {
    arrange();
    expect(await codeOf(container)).toBe(code);
  });

  it('pulls nothing before the back-off end it is given, and pulls again once the clock reaches it', async () => {
    const codeWithin = (endsAtMs: number) => images.ensureImageExists(pod, { name: 'c', image: 'app:1' }, sandboxConfig, endsAtMs)
      .then(() => undefined, (err: unknown) => (err as KubeletError).code);
    now = 5_000;
    expect(await codeWithin(10_000)).toBe('KLT_ERR_IMAGE_PULL_BACKOFF');
    expect(cri.calls.filter((c) => c.startsWith('pullImage'))).toEqual([]);
    now = 10_000;
    expect(await codeWithin(10_000)).toBeUndefined();
    expect(cri.calls.filter((c) => c.startsWith('pullImage'))).toEqual(['pullImage app:1']);
  });
});

describe('imageManager pulls with credentials', () => {
  const dockerconfig = (auths: Record<string, { username: string; password: string }>) =>
    ({ type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths })) } });
  const secrets = new Map<string, ReturnType<typeof dockerconfig> | Error>([
    ['team', dockerconfig({ 'reg.io/team': { username: 'team', password: 'team-pw' } })],
    ['host', dockerconfig({ 'reg.io': { username: 'host', password: 'host-pw' } })],
    ['other', dockerconfig({ 'other.io': { username: 'other', password: 'x' } })],
    ['broken', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from('{') } } as ReturnType<typeof dockerconfig>],
    ['unreadable', new Error('forbidden')],
  ]);
  const sources = {
    configMap: async () => undefined,
    secret: async (_ns: string, name: string) => {
      const s = secrets.get(name);
      if (s instanceof Error) throw s;
      return s;
    },
    serviceAccountToken: async () => { throw new Error('unused'); },
    registerPod: () => undefined,
    unregisterPod: () => undefined,
  };
  let sent: (string | undefined)[];
  let refuse: Set<string>;

  const managerWith = (providers?: { provide: (repo: string) => Promise<{ source: string; config: Record<string, { username: string; password: string }> }[]> }) => {
    const fake = new FakeCri();
    const pullImage: typeof fake.images.pullImage = async (spec, sb, opts) => {
      const user = opts?.auth?.username;
      sent.push(user);
      if (user === undefined || refuse.has(user)) throw new KubeletError('KLT_ERR_CRI_FAILED', `401 Unauthorized for ${user ?? 'anonymous'}`);
      return fake.images.pullImage(spec, sb);
    };
    return createImageManager({
      cri: { runtime: fake.runtime, images: { ...fake.images, pullImage }, close: () => undefined },
      clock: { now: () => now, setTimeout: () => undefined, clearTimeout: () => undefined }, logger: pino({ level: 'silent' }),
      credentials: { secrets: sources, ...(providers ? { providers } : {}) },
    });
  };
  const podWith = (...names: string[]): Pod => ({ ...pod, spec: { containers: [], imagePullSecrets: names.map((name) => ({ name })) } as Pod['spec'] });
  const errorOf = (p: Promise<unknown>) => p.then(() => undefined, (err: KubeletError) => err);

  beforeEach(() => {
    sent = [];
    refuse = new Set();
  });

  it('sends the most specific matching credential first and stops at the first that works', async () => {
    refuse.add('team');
    const got = await managerWith().ensureImageExists(podWith('host', 'other', 'team'), { name: 'c', image: 'reg.io/team/app:1' }, sandboxConfig);
    expect(sent).toEqual(['team', 'host']);
    expect(got.pulledWith).toBe('secret ns/host');
  });

  it('pulls anonymously when no credential matches, and skips a secret it cannot read', async () => {
    const err = await errorOf(managerWith().ensureImageExists(podWith('unreadable', 'other'), { name: 'c', image: 'reg.io/app:1' }, sandboxConfig));
    expect(sent).toEqual([undefined]);
    expect(err?.message).toContain('401 Unauthorized for anonymous');
  });

  it('joins the errors of every credential tried, Go\'s aggregate way', async () => {
    refuse.add('team').add('host');
    const err = await errorOf(managerWith().ensureImageExists(podWith('team', 'host'), { name: 'c', image: 'reg.io/team/app:1' }, sandboxConfig));
    expect(err?.code).toBe('KLT_ERR_IMAGE_PULL');
    expect(err?.message).toContain('[401 Unauthorized for team, 401 Unauthorized for host]');
  });

  it('fails the pull on a secret that does not decode, without a call to the runtime', async () => {
    const err = await errorOf(managerWith().ensureImageExists(podWith('broken'), { name: 'c', image: 'reg.io/app:1' }, sandboxConfig));
    expect(err?.code).toBe('KLT_ERR_IMAGE_PULL');
    expect(err?.message).toContain('ns/broken');
    expect(sent).toEqual([]);
  });

  it('tries the plugins\' credentials after the secrets\', asking them about the repository without its tag', async () => {
    refuse.add('host');
    const asked: string[] = [];
    const providers = { provide: async (repo: string) => (asked.push(repo), [{ source: 'plugin p', config: { 'reg.io': { username: 'plugin', password: 'pw' } } }]) };
    const got = await managerWith(providers).ensureImageExists(podWith('host'), { name: 'c', image: 'reg.io/app:1' }, sandboxConfig);
    expect(asked).toEqual(['reg.io/app']);
    expect(sent).toEqual(['host', 'plugin']);
    expect(got.pulledWith).toBe('plugin p');
  });
});
