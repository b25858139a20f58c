import type { Pod } from '../../src/domain/pod/types.js';
import type { KeyedData } from '../../src/domain/volumes/sources.js';
import type { ServiceAccountToken, TokenRequestSpec, VolumeSources } from '../../src/ports/volume-sources.js';

/** Text values to the bytes a manager hands out. */
export const keyed = (data: Record<string, string | Buffer>): KeyedData => ({
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === 'string' ? Buffer.from(v) : v])),
});

/**
 * VolumeSources over canned objects keyed `namespace/name`: a missing key reads as a 404
 * (undefined). Records every call; `failNext` makes the next read reject once.
 */
export class FakeVolumeSources implements VolumeSources {
  readonly calls: string[] = [];
  readonly tokenRequests: TokenRequestSpec[] = [];
  readonly registered: Pod[] = [];
  readonly unregistered: string[] = [];
  readonly configMaps = new Map<string, KeyedData>();
  readonly secrets = new Map<string, KeyedData>();
  /** What serviceAccountToken answers; by default a token named after the request, refreshed at 10 000. */
  token: (spec: TokenRequestSpec) => ServiceAccountToken = (spec) => ({
    token: `token-for-${spec.serviceAccountName}-${spec.audience || 'api'}`,
    expirationTimestampMs: 20_000,
    refreshAtMs: 10_000,
  });
  failNext?: Error;

  private takeFailure(): void {
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw failure;
  }

  async configMap(namespace: string, name: string): Promise<KeyedData | undefined> {
    this.calls.push(`configMap ${namespace}/${name}`);
    this.takeFailure();
    return this.configMaps.get(`${namespace}/${name}`);
  }

  async secret(namespace: string, name: string): Promise<KeyedData | undefined> {
    this.calls.push(`secret ${namespace}/${name}`);
    this.takeFailure();
    return this.secrets.get(`${namespace}/${name}`);
  }

  async serviceAccountToken(spec: TokenRequestSpec): Promise<ServiceAccountToken> {
    this.calls.push(`serviceAccountToken ${spec.namespace}/${spec.serviceAccountName}`);
    this.tokenRequests.push(spec);
    this.takeFailure();
    return this.token(spec);
  }

  registerPod(pod: Pod): void {
    this.calls.push(`registerPod ${pod.metadata.uid}`);
    this.registered.push(pod);
  }

  unregisterPod(podUid: string): void {
    this.calls.push(`unregisterPod ${podUid}`);
    this.unregistered.push(podUid);
  }
}
