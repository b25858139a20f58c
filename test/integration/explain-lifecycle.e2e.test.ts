import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { kubeLabPartFor, labApi } from '../support/kube-lab.js';
import { BUSYBOX, SLEEP, startLabNode, type LabNode } from '../support/lab-node.js';
import { containerdEndpoint, describeNeeding } from '../support/real-parts.js';

const endpoint = containerdEndpoint();
const exec = (...command: string[]) => ({ exec: { command } });

describeNeeding(kubeLabPartFor(endpoint), 'record', () => {
  let n: LabNode;
  beforeAll(async () => { n = await startLabNode({ name: 'kts-life', endpoint }); }, 120_000);
  afterAll(async () => {
    copyFileSync(join(n.dir, 'root', 'events', 'latest.jsonl'), '/work/lab/life-journals/a.jsonl');
    await n?.dispose();
  }, 120_000);
  it('records', async () => {
    await n.createPod('ready-flip', { containers: [{ name: 'main', image: BUSYBOX,
      command: ['sh', '-c', `touch /tmp/ready; sleep 6; rm /tmp/ready; ${SLEEP}`],
      readinessProbe: { ...exec('cat', '/tmp/ready'), periodSeconds: 1, failureThreshold: 1 } }] });
    await n.createPod('crash', { containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', 'sleep 1; exit 3'] }] });
    await n.createPod('live', { containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', `touch /tmp/live; sleep 3; rm /tmp/live; ${SLEEP}`],
      livenessProbe: { ...exec('cat', '/tmp/live'), periodSeconds: 1, failureThreshold: 1 } }] });
    await n.createPod('deleted', { terminationGracePeriodSeconds: 7, containers: [{ name: 'main', image: BUSYBOX, command: ['sh', '-c', SLEEP] }] });
    await n.whileUp('deleted Running', async () => (await n.pod('deleted'))?.status?.phase === 'Running', 60_000);
    await labApi(n.lab, 'DELETE', `/api/v1/namespaces/${n.ns}/pods/deleted`, { gracePeriodSeconds: 5 });
    await n.whileUp('crash restarted twice', async () => ((await n.pod('crash'))?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 3, 90_000);
  }, 150_000);
});
