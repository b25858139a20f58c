/**
 * The Services the kubelet knows of, every namespace's (Go's service lister over a shared
 * informer): what the Service environment variables are made from.
 */
import type { Service } from '../domain/runtime/service-env.js';

export interface ServiceLister {
  /** Every Service known now. */
  list(): readonly Service[];
  /** Whether the Services have been listed at least once (Go's serviceHasSynced). */
  hasSynced(): boolean;
}

export interface ServiceInformer extends ServiceLister {
  /** Stops its list/watch. */
  stop(): void;
}
