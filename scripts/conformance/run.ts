/**
 * `npm run conformance`: the upstream Kubernetes node conformance suite of the lab's version (v1.35)
 * against one kubelet (kubelet-ts by default, `--runtime=go` for the Go kubelet of that version) as
 * the one node of a real control
 * plane. Brings up, in order, the control plane (the lab's up.sh), a containerd with the suite's
 * images and the node; runs the suite; writes the results (results.ts says where) and, after a full
 * run, docs/CONFORMANCE.md; then takes everything down in reverse, also on failure or Ctrl-C (a first
 * Ctrl-C lets the suite clean up and report, a second kills it). Needs root, as containerd does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { detectCgroupLayout } from '../../src/adapters/host/cgroup-layout.js';
import { Cgroupfs } from '../../src/adapters/host/cgroupfs.js';
import { createCriClient } from '../../src/adapters/cri-grpc/index.js';
import { tearDownEverySandbox } from '../../bench/cri-fixtures.js';
import { purgeKubeLab, runScript, scriptEnv } from '../../test/support/kube-lab-scripts.js';
import { upOnce } from '../../test/support/kube-lab-up.js';
import { containerdEnv, downContainerd, importSuiteImages, PAUSE_IMAGE, upContainerd } from './containerd.js';
import { explainFromJournal, keepJournal, type SpecExplanation } from './explain-failures.js';
import { dryRun, junitIn, startSuite, type RunningSuite } from './ginkgo.js';
import { parseJunit } from './junit.js';
import { labParts, missingParts } from './lab-parts.js';
import { addHostsLine, nodeDir, startNodeKubelet, unmountUnder, untilNodeReady } from './node.js';
import { parseOptions, type Options } from './options.js';
import { removePodLogs, watchNodePods } from './pod-logs.js';
import { renderConformance, renderSubset, type LabCause } from './report.js';
import { countByStatus, resultsFile, RUNTIME_LABEL, SUBSETS_DIR, subsetReportFile, subsetSpecsFile, type ConformanceResults, type Runtime } from './results.js';
import { exactFocus, NAMED_SKIP, pickSubset, specNamesOf, SUITE_FOCUS, SUITE_SKIP } from './selection.js';
import { Teardown } from './teardown.js';

const log = (line: string): void => {
  process.stderr.write(`conformance: ${line}\n`);
};
const REPORT = 'docs/CONFORMANCE.md';
const LAB_CAUSES = 'docs/conformance/lab-causes.json';

let suite: RunningSuite | undefined;
let interrupted = false;
let tearingDown = false;
function onSignal(signal: string): void {
  if (tearingDown) return log(`${signal}: tearing down, please wait`);
  interrupted = true;
  if (suite) {
    log(`${signal}: interrupting the suite (again to kill it)`);
    suite.interrupt();
  } else log(`${signal}: stopping after this step`);
}

/** Each bring-up step, unless a signal asked to stop. */
async function step<T>(what: string, run: () => Promise<T> | T): Promise<T> {
  if (interrupted) throw new Error('interrupted');
  log(what);
  return run();
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2), process.env);
  if (opts.reportOnly) return writeReport() ? 0 : 1;
  const parts = labParts();
  const missing = missingParts(parts, opts.runtime === 'go', opts.e2eBinary);
  if (missing) throw new Error(missing);
  // Absolute: ginkgo runs the suite in the binary's directory.
  const artifacts = resolve('test-artifacts', 'conformance', opts.runtime === 'ts' ? 'kts' : 'go');
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });
  // Short: the node's root dir is under it, and a DRA driver updated in place puts its pod's UID
  // into its socket names there, whose full path a unix socket takes only up to 107 bytes.
  const work = mkdtempSync('/tmp/ktc-');
  const teardown = new Teardown(log);
  teardown.add(`removing ${work}`, () => {
    unmountUnder(work);
    rmSync(work, { recursive: true, force: true });
  });
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  let completed = false;
  try {
    completed = await bringUpAndRun(opts, parts, work, artifacts, teardown);
  } catch (err) {
    log(`failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    tearingDown = true;
    if (!(await teardown.run())) completed = false;
  }
  return completed ? 0 : 1;
}

async function bringUpAndRun(opts: Options, parts: ReturnType<typeof labParts>, work: string, artifacts: string, teardown: Teardown): Promise<boolean> {
  const e2eTest = join(parts.bin, opts.e2eBinary);
  const ginkgo = join(parts.bin, 'ginkgo');
  const listed = await dryRun(e2eTest, SUITE_FOCUS, SUITE_SKIP, join(work, 'dry-run'));
  const selection = listed.specs.map((s) => s.name);
  const subset = opts.focus !== undefined || opts.specsFile !== undefined;
  const names = opts.specsFile ? specNamesOf(readFileSync(opts.specsFile, 'utf8')) : undefined;
  const outside = (names ?? []).filter((n) => !selection.includes(n));
  const beyond = outside.length > 0 ? (await dryRun(e2eTest, exactFocus(outside), NAMED_SKIP, join(work, 'dry-run-named'))).specs.map((s) => s.name) : [];
  const skip = names ? NAMED_SKIP : SUITE_SKIP;
  const picked = subset ? pickSubset(selection, { ...(opts.focus ? { focus: opts.focus } : {}), ...(names ? { names } : {}) }, beyond) : selection;
  log(`${selection.length} of ${selection.length + listed.notSelected} specs selected${subset ? `; ${picked.length} of them in this subset` : ''}`);
  if (opts.dryRun) {
    for (const name of [...picked].sort()) process.stdout.write(`${name}\n`);
    return true;
  }

  const crEnv = containerdEnv();
  const cgroupRoot = crEnv.CGROUP_PARENT!;
  const cgroups = new Cgroupfs(await detectCgroupLayout());
  // The cgroup root must exist in every hierarchy before either kubelet starts; containerd's down.sh
  // removes what pods left under it, this the root itself.
  await step(`making the cgroup root ${cgroupRoot}`, () => cgroups.create(cgroupRoot, {}));
  teardown.add(`removing the cgroup root ${cgroupRoot}`, () => cgroups.destroy(cgroupRoot));

  const labDir = join(work, 'kube');
  mkdirSync(labDir);
  teardown.add('stopping the control plane', () => purgeKubeLab(labDir, parts.kube));
  // The DRA specs create claims of resource.k8s.io's beta versions too, which v1.35 serves only
  // when asked, as the DRA suite's own cluster asks; a run that sets its own flags keeps them.
  process.env.KUBE_LAB_APISERVER_ARGS ??= '--runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true';
  const lab = await step('bringing up the control plane', () => upOnce(labDir, parts.kube));

  // A lab directory chosen here, not by up.sh: down.sh must find it even when up.sh fails half-way.
  const criLab = crEnv.LAB || mkdtempSync('/tmp/kts-cri.conformance-');
  teardown.add(`stopping containerd (${criLab})`, () => downContainerd({ lab: criLab }));
  const containerd = await step('bringing up containerd', () => upContainerd({ ...crEnv, LAB: criLab }));
  const images = await step('building and importing the suite\'s images', () => importSuiteImages(containerd, join(parts.e2e, 'images.sh'), join(work, 'images'), opts.labImagesOnly, hostPathPluginIn(parts.bin)));
  log(`imported ${images.join(', ')}`);

  const name = `conformance-${opts.runtime}`;
  const dir = nodeDir(work, opts.runtime);
  const kubeconfig = join(dir, 'node.kubeconfig');
  writeFileSync(kubeconfig, await runScript('bash', [join(parts.kube, 'node-kubeconfig.sh'), name], scriptEnv(labDir), 60_000));
  teardown.add(`removing ${name} from /etc/hosts`, addHostsLine(name));
  const pods = await watchNodePods(lab, name);
  teardown.add('removing the logs of the node\'s pods from /var/log', () => {
    pods.stop();
    log(`removed the logs of ${removePodLogs(pods.uids)} of ${pods.uids.size} pods`);
  });
  const goBinary = opts.runtime === 'go' ? join(parts.bin, 'kubelet') : undefined;
  // Taken now: the commit (or the binary) that runs, not what the tree holds when the suite ends.
  const kubeletUnderTest = kubeletLabel(opts.runtime, goBinary);
  const suiteVersion = binaryVersion(join(parts.bin, 'kube-apiserver'));
  const kubeletLog = join(artifacts, 'kubelet.log');
  // Registered before the kubelet's stop, so it runs after it: the journal kept is the whole run's.
  const events = join(dir, 'root', 'events');
  const keptJournal = join(artifacts, 'journal');
  if (opts.runtime === 'ts') {
    teardown.add(`keeping the node's journal in ${keptJournal}`, () => {
      if (!keepJournal(events, keptJournal)) log(`the node wrote no journal in ${events}`);
    });
  }
  const kubelet = await step(`starting the ${RUNTIME_LABEL[opts.runtime]} as node ${name}`, () => startNodeKubelet({
    runtime: opts.runtime, name, dir, kubeconfig, endpoint: containerd.endpoint, cgroupRoot, pauseImage: PAUSE_IMAGE, logFile: kubeletLog,
    ...(goBinary ? { goBinary } : {}),
  }, lab));
  teardown.add('stopping the kubelet and removing its pods from containerd', async () => {
    await kubelet.stop();
    const cri = createCriClient({ endpoint: containerd.endpoint });
    try {
      await tearDownEverySandbox(cri);
    } finally {
      cri.close();
    }
    unmountUnder(dir);
  });
  await step('waiting for the Node to be Ready', () => untilNodeReady(lab, name, kubelet, kubeletLog));
  log(`kubelet pid ${kubelet.pid} on 127.0.0.1:${kubelet.port}`);

  const focus = subset ? exactFocus(picked) : SUITE_FOCUS;
  const started = new Date();
  const loadAtStart = loadavg()[0]!;
  suite = await step(`running ${picked.length} specs with ${opts.procs} ginkgo processes`, () => startSuite({
    ginkgo, e2eTest, procs: opts.procs, timeout: opts.timeout, focus, skip,
    kubeconfig: lab.adminKubeconfig, endpoint: containerd.endpoint, reportDir: artifacts, kubeletRootDir: join(dir, 'root'),
  }, join(artifacts, 'ginkgo.log')));
  const code = await suite.exited;
  suite = undefined;
  const wallSeconds = Math.round((Date.now() - started.getTime()) / 1000);
  if (!existsSync(junitIn(artifacts))) throw new Error(`the suite wrote no report (ginkgo exit ${code}); see ${join(artifacts, 'ginkgo.log')}`);
  const junit = parseJunit(readFileSync(junitIn(artifacts), 'utf8'));
  const explained = opts.runtime === 'ts' ? explainFailures(junit.specs, join(events, 'latest.jsonl')) : undefined;
  const results: ConformanceResults = {
    runtime: opts.runtime, kubelet: kubeletUnderTest, suite: suiteVersion, date: started.toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', memGiB: Math.round(totalmem() / 2 ** 30), kernel: release(), loadAtStart },
    command: opts.command, procs: opts.procs, wallSeconds, focus: SUITE_FOCUS, skip, images,
    partial: subset || interrupted, notSelected: junit.notSelected, suiteFailures: junit.suiteFailures, specs: junit.specs,
    ...(opts.subset !== undefined ? { subset: opts.subset } : {}),
    ...(explained ? { journal: relative(process.cwd(), keptJournal), explained } : {}),
  };
  const file = resultsFile(opts.runtime, results.partial, opts.subset);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  summarize(results, file, code);
  // A subset's run changes its page and the summary of subsets on the selection's page.
  if (opts.subset !== undefined || !results.partial) writeReport();
  return !interrupted;
}

/** explain on the failed specs' pods, from the live node's journal; a failure to read it is reported, not fatal. */
function explainFailures(specs: ConformanceResults['specs'], journal: string): SpecExplanation[] {
  try {
    const explained = explainFromJournal(specs, journal);
    const told = explained.reduce((n, e) => n + e.pods.length, 0);
    if (explained.length > 0) log(`explain told ${told} pods of ${explained.length} specs that did not pass`);
    return explained;
  } catch (err) {
    log(`explain could not read the node's journal ${journal}: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  }
}

/** `v1.35.6+openshift` from a Kubernetes binary's `--version`. */
/** The lab's hostpathplugin, which the DRA specs' image is made of, when it was built. */
const hostPathPluginIn = (bin: string) => (existsSync(join(bin, 'hostpathplugin')) ? join(bin, 'hostpathplugin') : undefined);
const binaryVersion = (binary: string) => execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim().replace(/^Kubernetes /, '');

function kubeletLabel(runtime: Runtime, goBinary: string | undefined): string {
  if (runtime === 'go') return `Go kubelet ${binaryVersion(goBinary!)}`;
  const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
  return `kubelet-ts ${version} (${commit}${dirty ? ', uncommitted changes' : ''})`;
}

function summarize(r: ConformanceResults, file: string, ginkgoExit: number | null): void {
  const counts = Object.entries(countByStatus(r.specs)).map(([k, v]) => `${k} ${v}`).join(', ');
  process.stdout.write(`\n${RUNTIME_LABEL[r.runtime]}: ${r.specs.length} specs (${counts}) in ${r.wallSeconds} s with ${r.procs} processes; ginkgo exit ${ginkgoExit}\n`);
  for (const s of r.specs.filter((x) => x.status !== 'passed')) process.stdout.write(`  ${s.status.padEnd(9)} ${s.name}${s.failure ? ` :: ${s.failure}` : ''}\n`);
  for (const s of r.suiteFailures) process.stdout.write(`  suite ${s.status} ${s.name}${s.failure ? ` :: ${s.failure}` : ''}\n`);
  const kept = r.subset !== undefined ? ` (the subset ${r.subset}: ${subsetReportFile(r.subset)} rewritten)` : r.partial ? ' (partial: docs/ left as they were)' : '';
  process.stdout.write(`results: ${file}${kept}\n`);
}

/** The kept results of each kubelet, a full run's or a subset's. */
function readKept(subset?: string): { ts?: ConformanceResults; go?: ConformanceResults } {
  const read = (runtime: Runtime): ConformanceResults | undefined => {
    const file = resultsFile(runtime, false, subset);
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ConformanceResults) : undefined;
  };
  const [ts, go] = [read('ts'), read('go')];
  return { ...(ts ? { ts } : {}), ...(go ? { go } : {}) };
}

const labCauses = () => JSON.parse(readFileSync(LAB_CAUSES, 'utf8')) as LabCause[];

/** docs/CONFORMANCE.md from whichever full runs are kept (false: none is), and every kept subset's page. */
function writeReport(): boolean {
  const subsets = existsSync(SUBSETS_DIR) ? readdirSync(SUBSETS_DIR).filter((f) => f.endsWith('.txt')).map((f) => f.slice(0, -'.txt'.length)).sort() : [];
  for (const subset of subsets) writeSubsetReport(subset);
  const kept = readKept();
  if (!kept.ts && !kept.go) {
    log(`no full run kept (${resultsFile('ts', false)}, ${resultsFile('go', false)}): ${REPORT} not written`);
    return false;
  }
  writeFileSync(REPORT, renderConformance({ ...kept, causes: labCauses(), subsets: subsets.map((subset) => ({ subset, ...readKept(subset) })) }));
  log(`wrote ${REPORT}`);
  return true;
}

/** A kept subset's page from whichever kubelets ran it. */
function writeSubsetReport(subset: string): void {
  const kept = readKept(subset);
  if (!kept.ts && !kept.go) return log(`the subset ${subset} (${subsetSpecsFile(subset)}) has no kept run: ${subsetReportFile(subset)} not written`);
  writeFileSync(subsetReportFile(subset), renderSubset({ subset, ...kept, causes: labCauses() }));
  log(`wrote ${subsetReportFile(subset)}`);
}

main().then((code) => process.exit(code), (err: unknown) => {
  log(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
