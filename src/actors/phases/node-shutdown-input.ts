/**
 * The node shutdown manager's input from the configuration (Go: nodeshutdown.NewManager): no
 * GracefulNodeShutdown gate, or no grace period class, means no manager (Go's managerStub: "node
 * shutdown will be immediate"), logged once as Go logs it.
 */
import { isEnabled, type FeatureGates } from '../../domain/config/feature-gates.js';
import type { KubeletConfiguration } from '../../domain/config/types.js';
import { shutdownClasses } from '../../domain/node-shutdown/shutdown-groups.js';
import type { Logger } from '../../log.js';
import type { NodeShutdownInput } from '../../machines/node-shutdown.machine.js';

export function nodeShutdownInput(c: KubeletConfiguration, gates: FeatureGates, nodeName: string, logger: Logger): NodeShutdownInput | undefined {
  if (!isEnabled(gates, 'GracefulNodeShutdown')) {
    logger.info('Node graceful shutdown feature is disabled, node shutdown will be immediate');
    return undefined;
  }
  const classes = shutdownClasses(c, isEnabled(gates, 'GracefulNodeShutdownBasedOnPodPriority'));
  if (classes.length === 0) {
    logger.info('No graceful configuration specified, node shutdown will be immediate');
    return undefined;
  }
  logger.info({ shutdownGracePeriodRequested: c.shutdownGracePeriod, shutdownGracePeriodCriticalPods: c.shutdownGracePeriodCriticalPods, shutdownGracePeriodByPodPriority: classes }, 'Creating node shutdown manager');
  return { nodeName, classes };
}
