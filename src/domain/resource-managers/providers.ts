/**
 * The resource managers that take part in admission, in Go's order of its topology manager's hint
 * providers (the device manager, the CPU manager, the memory manager): hints are asked and shares
 * allocated in this order.
 */
import type { ResourceProvider } from './admit.js';
import { cpuProvider } from './cpu-provider.js';
import { deviceProvider } from './device-provider.js';
import { memoryProvider } from './memory-provider.js';

export const RESOURCE_PROVIDERS: readonly ResourceProvider[] = [deviceProvider, cpuProvider, memoryProvider];
