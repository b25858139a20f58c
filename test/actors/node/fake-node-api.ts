/** An in-memory HeartbeatApi: records calls, keeps nodes and leases with resourceVersions, injects failures. */
import { KubeletError, type KubeletErrorCode } from '../../../src/domain/errors.js';
import type { HeartbeatApi, LeaseObject, NodeMetadataPatch, NodeObject, NodeStatus } from '../../../src/ports/apiserver.js';

export class FakeNodeApi implements HeartbeatApi {
  readonly calls: string[] = [];
  readonly nodes = new Map<string, NodeObject>();
  readonly leases = new Map<string, LeaseObject>();
  reopens = 0;
  /** Codes thrown by the next calls, one per call, whatever the method. */
  failNext: KubeletErrorCode[] = [];
  private rv = 0;

  private step(name: string): void {
    this.calls.push(name);
    const code = this.failNext.shift();
    if (code) throw new KubeletError(code, `${name}: injected`, { retryable: code === 'KLT_ERR_API_UNAVAILABLE' });
  }
  private version(): string {
    return String(++this.rv);
  }

  async getNode(name: string): Promise<NodeObject> {
    this.step('getNode');
    const n = this.nodes.get(name);
    if (!n) throw new KubeletError('KLT_ERR_API_NOT_FOUND', 'not found');
    return structuredClone(n);
  }
  async createNode(node: NodeObject): Promise<NodeObject> {
    this.step('createNode');
    const name = node.metadata.name ?? '';
    if (this.nodes.has(name)) throw new KubeletError('KLT_ERR_API_ALREADY_EXISTS', 'exists');
    const stored = { ...structuredClone(node), metadata: { ...node.metadata, uid: `uid-${name}`, resourceVersion: this.version() } };
    this.nodes.set(name, stored);
    return structuredClone(stored);
  }
  async patchNode(name: string, patch: NodeMetadataPatch): Promise<NodeObject> {
    this.step('patchNode');
    const n = this.nodes.get(name);
    if (!n) throw new KubeletError('KLT_ERR_API_NOT_FOUND', 'not found');
    const labels = { ...n.metadata.labels, ...patch.metadata?.labels };
    const annotations: Record<string, string> = { ...n.metadata.annotations };
    for (const [k, v] of Object.entries(patch.metadata?.annotations ?? {})) {
      if (v === null) delete annotations[k];
      else annotations[k] = v;
    }
    n.metadata = { ...n.metadata, labels, annotations, resourceVersion: this.version() };
    return structuredClone(n);
  }
  async patchNodeStatus(name: string, status: NodeStatus): Promise<NodeObject> {
    this.step('patchNodeStatus');
    const n = this.nodes.get(name);
    if (!n) throw new KubeletError('KLT_ERR_API_NOT_FOUND', 'not found');
    n.status = { ...n.status, ...structuredClone(status) };
    return structuredClone(n);
  }
  async getLease(namespace: string, name: string): Promise<LeaseObject> {
    this.step('getLease');
    const l = this.leases.get(`${namespace}/${name}`);
    if (!l) throw new KubeletError('KLT_ERR_API_NOT_FOUND', 'not found');
    return structuredClone(l);
  }
  async createLease(lease: LeaseObject): Promise<LeaseObject> {
    this.step('createLease');
    const key = `${lease.metadata.namespace}/${lease.metadata.name}`;
    if (this.leases.has(key)) throw new KubeletError('KLT_ERR_API_ALREADY_EXISTS', 'exists');
    const stored = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: this.version() } };
    this.leases.set(key, stored);
    return structuredClone(stored);
  }
  async updateLease(lease: LeaseObject): Promise<LeaseObject> {
    this.step('updateLease');
    const key = `${lease.metadata.namespace}/${lease.metadata.name}`;
    const current = this.leases.get(key);
    if (!current) throw new KubeletError('KLT_ERR_API_NOT_FOUND', 'not found');
    if (current.metadata.resourceVersion !== lease.metadata.resourceVersion) throw new KubeletError('KLT_ERR_API_CONFLICT', 'conflict');
    const stored = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: this.version() } };
    this.leases.set(key, stored);
    return structuredClone(stored);
  }
  reopen(): void {
    this.reopens++;
  }
}
