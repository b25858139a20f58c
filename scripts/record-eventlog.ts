/**
 * Records an event log from the real binary for the replay gate (test/fixtures/eventlogs/):
 * kubelet-ts on the embedded runtime with a few static pods (one healthy, one crash-looping, one
 * whose readiness probe makes it ready and then not, one whose image cannot be pulled) and a manifest that does
 * not parse, then SIGTERM. It runs for at least SECONDS (default 6) and until the log holds the image
 * pull's second failure: the sync after the pod worker's back-off, handed the image's pull back-off
 * (about 13 s). The pods are removed afterwards.
 *
 *   npm run record:eventlog   (records every fixture; this one is dist/scripts/record-eventlog.js OUT.jsonl [SECONDS])
 *
 * Re-record when a machine's behaviour changes on purpose: the replay test then says exactly which
 * record changed, and the new log is the reviewed record of the new behaviour.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { removeEmbeddedPods, waitFor } from './record-support.js';

const out = process.argv[2];
const seconds = Number(process.argv[3] ?? 6);
if (!out) {
  process.stderr.write('usage: record-eventlog OUT.jsonl [SECONDS]\n');
  process.exit(2);
}

const pod = (name: string, container: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'kubelet-ts.local/busybox:1.0', ...container }] } });

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'kts-record-'));
  const root = join(dir, 'root');
  const manifests = join(dir, 'manifests');
  mkdirSync(manifests);
  writeFileSync(join(manifests, 'web.json'), pod('web', { command: ['sh', '-c', "trap 'exit 0' TERM; while :; do echo web; sleep 1 & wait $!; done"] }));
  writeFileSync(join(manifests, 'crash.json'), pod('crash', { command: ['sh', '-c', 'echo crashing; exit 3'] }));
  // Ready at the probe's first run, not ready from its second on: readiness changes both ways.
  const once = join(dir, 'ready-once');
  writeFileSync(join(manifests, 'readiness.json'), pod('readiness', {
    command: ['sh', '-c', "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"],
    readinessProbe: { exec: { command: ['sh', '-c', `test ! -e ${once} && touch ${once}`] }, periodSeconds: 1, failureThreshold: 1 },
  }));
  // On a registry that never resolves: ErrImagePull, the pod worker's back-off, ErrImagePull again.
  writeFileSync(join(manifests, 'unpullable.json'), pod('unpullable', { image: 'registry.invalid/missing:1.0' }));
  writeFileSync(join(manifests, 'broken.yaml'), 'not: [valid');
  const cfg = join(dir, 'kubelet.yaml');
  writeFileSync(cfg, [
    'apiVersion: kubelet.config.k8s.io/v1beta1', 'kind: KubeletConfiguration',
    `staticPodPath: ${manifests}`, `podLogsDir: ${join(dir, 'logs')}`, 'containerRuntimeEndpoint: embedded',
    'authentication: {webhook: {enabled: false}, anonymous: {enabled: true}}', 'authorization: {mode: AlwaysAllow}',
    // A recording makes no cgroups on the host it runs on.
    'cgroupsPerQOS: false', 'enforceNodeAllocatable: []',
    'enableServer: false', 'healthzPort: 0', '',
  ].join('\n'));
  const bin = resolve('dist/bundle/kubelet.js');
  const child = spawn(process.execPath, [bin, `--config=${cfg}`, `--root-dir=${root}`, `--device-plugins-dir=${root}/device-plugins`, '--debug-address=', '--hostname-override=fixture-node'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const log = join(root, 'events', 'latest.jsonl');
  const pullFailures = () => (existsSync(log) ? readFileSync(log, 'utf8').split('"pullFailure"').length - 1 : 0);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  await waitFor('the image pull\'s second failure in the log', () => pullFailures() >= 2, 40_000);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  copyFileSync(join(root, 'events', 'latest.jsonl'), out!);

  await removeEmbeddedPods(root);
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`recorded ${out}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`record-eventlog failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
