/** Go (server.go): the heartbeat client's timeout is min(nodeStatusUpdateFrequency, nodeLeaseDurationSeconds). */
export function heartbeatTimeoutMsFor(nodeStatusUpdateFrequencyMs: number, nodeLeaseDurationSeconds: number): number {
  return Math.min(nodeStatusUpdateFrequencyMs, nodeLeaseDurationSeconds * 1000);
}
