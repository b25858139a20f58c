/**
 * The suite: the lab's e2e.test under the ginkgo CLI, N processes in parallel, against the run's
 * control plane and node; and the binary alone in dry-run mode, which lists the selection.
 */
import { execFile, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJunit, type JunitSpecs } from './junit.js';

export interface SuiteRun {
  ginkgo: string;
  e2eTest: string;
  procs: number;
  /** ginkgo's --timeout for the whole suite, e.g. 180m. */
  timeout: string;
  focus: string;
  skip: string;
  kubeconfig: string;
  /** containerd's unix:// socket. */
  endpoint: string;
  reportDir: string;
  /** The node's --root-dir: specs that deploy plugins on the node (CSI, DRA) mount its plugin directories. */
  kubeletRootDir: string;
}

/** The e2e framework's flags for a one-node local cluster with no DNS, no kube-proxy and no log dump. */
export function e2eFlags(r: Pick<SuiteRun, 'kubeconfig' | 'endpoint' | 'reportDir' | 'kubeletRootDir'>): string[] {
  return [`--kubelet-root-dir=${r.kubeletRootDir}`,
    `--kubeconfig=${r.kubeconfig}`, '--provider=local', '--num-nodes=1', '--minStartupPods=0', '--allowed-not-ready-nodes=0',
    '--node-os-distro=debian', `--container-runtime-endpoint=${r.endpoint}`, `--report-dir=${r.reportDir}`, '--disable-log-dump',
    '--non-blocking-taints=node-role.kubernetes.io/control-plane',
  ];
}

export function ginkgoArgs(r: SuiteRun): string[] {
  return ['run', '-p', `--procs=${r.procs}`, `--timeout=${r.timeout}`, '--no-color', `--focus=${r.focus}`, `--skip=${r.skip}`, r.e2eTest, '--', ...e2eFlags(r)];
}

/** The report the framework writes into --report-dir. */
export const junitIn = (reportDir: string) => join(reportDir, 'junit_01.xml');

/** The binary's own listing of what focus and skip select (no cluster needed). */
export function dryRun(e2eTest: string, focus: string, skip: string, reportDir: string): Promise<JunitSpecs> {
  mkdirSync(reportDir, { recursive: true });
  const args = ['--ginkgo.dry-run', '--ginkgo.no-color', `--ginkgo.focus=${focus}`, `--ginkgo.skip=${skip}`, '--provider=local', '--num-nodes=1', `--report-dir=${reportDir}`];
  return new Promise((done, fail) => {
    execFile(e2eTest, args, { maxBuffer: 64 << 20 }, (err, _stdout, stderr) => {
      if (err) return fail(new Error(`${e2eTest} --ginkgo.dry-run failed: ${stderr.slice(-2000)}`));
      done(parseJunit(readFileSync(junitIn(reportDir), 'utf8')));
    });
  });
}

export interface RunningSuite {
  /** ginkgo's exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** First call: SIGINT to the suite, which cleans up its namespaces and writes its report; later calls: SIGKILL. */
  interrupt(): void;
}

/** Starts ginkgo in a process group of its own, its output both shown and kept in `logFile`. */
export function startSuite(r: SuiteRun, logFile: string): RunningSuite {
  mkdirSync(r.reportDir, { recursive: true });
  const child = spawn(r.ginkgo, ginkgoArgs(r), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const log = createWriteStream(logFile);
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (d: Buffer) => {
      process.stdout.write(d);
      log.write(d);
    });
  }
  let interrupts = 0;
  return {
    exited: new Promise((done) => child.once('close', (code) => log.end(() => done(code)))),
    interrupt: () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid!, interrupts++ === 0 ? 'SIGINT' : 'SIGKILL');
    },
  };
}
