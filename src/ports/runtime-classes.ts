/**
 * The RuntimeClasses the kubelet knows of (Go's runtimeclass.Manager over a shared informer): the
 * handler each one names, which the pod's sandbox is run with.
 */
export interface RuntimeClassLister {
  /** The handler of the RuntimeClass called `name`, or undefined when there is no such class. */
  handlerOf(name: string): string | undefined;
  /** Whether the RuntimeClasses have been listed at least once. */
  hasSynced(): boolean;
}

export interface RuntimeClassInformer extends RuntimeClassLister {
  /** Stops its list/watch. */
  stop(): void;
}
