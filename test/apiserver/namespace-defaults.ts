/**
 * What two kube-controller-manager controllers keep in every namespace, for the test API server:
 *
 * - the root CA publisher's `kube-root-ca.crt` ConfigMap: data `ca.crt` = the cluster CA and the
 *   `kubernetes.io/description` annotation; put back when deleted, and its data reset when changed;
 * - the serviceaccount controller's `default` ServiceAccount, put back when deleted.
 *
 * A namespace is served once its Namespace is added or an object is first created in it (the store
 * takes objects in namespaces that have no Namespace, a real API server does not), and no longer
 * once its Namespace is deleted. The controllers act a microtask after the change that calls for
 * it, as controllers act on watch events: acting inside the store's listener would reach other
 * listeners (watches) before the change that caused it. Namespaces present at start are done at once.
 */
import type { KubeObject } from './resources.js';
import type { ObjectStore, StoreChange } from './store.js';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const DEFAULT_SERVICE_ACCOUNT = 'default';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the '
  + 'internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

export interface NamespaceDefaultsOptions {
  /** The CA PEM to publish as kube-root-ca.crt; undefined turns the publisher off. */
  rootCaPem: string | undefined;
  /** Whether the default ServiceAccount is made. */
  defaultServiceAccount: boolean;
}

export class NamespaceDefaults {
  private readonly deletedNamespaces = new Set<string>();
  private readonly pending = new Set<string>();
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(private readonly store: ObjectStore, private readonly opts: NamespaceDefaultsOptions) {
    for (const ns of store.list('namespaces').items) this.reconcile(ns.metadata?.name ?? '');
    this.unsubscribe = store.subscribe((change) => this.onChange(change));
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
  }

  private onChange(change: StoreChange): void {
    const name = change.object.metadata?.name ?? '';
    if (change.storage === 'namespaces') {
      if (change.type === 'DELETED') this.deletedNamespaces.add(name);
      else {
        this.deletedNamespaces.delete(name);
        this.schedule(name);
      }
      return;
    }
    const namespace = change.object.metadata?.namespace;
    if (namespace === undefined) return;
    const rootCaChanged = change.storage === 'configmaps' && name === ROOT_CA_CONFIGMAP;
    if (change.type === 'ADDED' || change.type === 'DELETED' || rootCaChanged) this.schedule(namespace);
  }

  private schedule(namespace: string): void {
    if (this.pending.size === 0) {
      queueMicrotask(() => {
        const namespaces = [...this.pending];
        this.pending.clear();
        if (!this.closed) for (const ns of namespaces) this.reconcile(ns);
      });
    }
    this.pending.add(namespace);
  }

  private reconcile(namespace: string): void {
    if (namespace === '' || this.deletedNamespaces.has(namespace)) return;
    // A controller that fails logs and retries later; a test that made the object unwritable
    // (an immutable kube-root-ca.crt) sees it left as it is.
    try {
      if (this.opts.rootCaPem !== undefined) this.publishRootCa(namespace, this.opts.rootCaPem);
      if (this.opts.defaultServiceAccount && this.store.get('serviceaccounts', namespace, DEFAULT_SERVICE_ACCOUNT) === undefined) {
        this.store.create('serviceaccounts', { metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } }, namespace);
      }
    } catch {
      // see above
    }
  }

  /** The publisher's sync: create, or reset data and the annotation when either differs. */
  private publishRootCa(namespace: string, caPem: string): void {
    const current = this.store.get('configmaps', namespace, ROOT_CA_CONFIGMAP);
    const data = { 'ca.crt': caPem };
    if (current === undefined) {
      this.store.create('configmaps', {
        metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } }, data,
      }, namespace);
      return;
    }
    const annotations = current.metadata?.annotations ?? {};
    if (JSON.stringify(current.data) === JSON.stringify(data) && annotations[DESCRIPTION_ANNOTATION]) return;
    const updated: KubeObject = { ...current, metadata: { ...current.metadata, annotations: { ...annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION } }, data };
    this.store.update('configmaps', updated, 'direct', namespace, ROOT_CA_CONFIGMAP);
  }
}
