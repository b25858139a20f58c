/**
 * The Services the kubelet knows of, every namespace's (Go's service lister over a shared
 * informer, with its namespace index): what the Service environment variables are made from.
 */
import type { Service } from '../domain/runtime/service-env.js';

/** One namespace's Services now. */
export interface NamespaceServices {
  /** Changes whenever one of this namespace's Services does (0: it has none). */
  readonly version: number;
  /** By name. */
  readonly services: ReadonlyMap<string, Service>;
}

export interface ServiceLister {
  /** The Services of one namespace, read without going through the others. */
  inNamespace(namespace: string): NamespaceServices;
  /** Whether the Services have been listed at least once (Go's serviceHasSynced). */
  hasSynced(): boolean;
}

export interface ServiceInformer extends ServiceLister {
  /** Every Service known now, of every namespace. */
  list(): readonly Service[];
  /** Stops its list/watch. */
  stop(): void;
}
