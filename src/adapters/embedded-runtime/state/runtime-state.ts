/**
 * The embedded runtime's records of sandboxes and containers, kept in memory and on disk, and brought
 * up to date before every answer: a RUNNING container whose shim has written exit.json becomes
 * EXITED; one whose process and shim are both gone (killed behind our back, or the machine rebooted)
 * becomes EXITED with containerd's unknown exit code 255. The RPCs (sandboxes.ts, containers.ts,
 * exec.ts, stats.ts) all work on one RuntimeState.
 */
import { join } from 'node:path';
import { KubeletError } from '../../../domain/errors.js';
import type { Logger } from '../../../log.js';
import { readJsonFileSync } from '../shim/atomic-file.js';
import type { ListedContainer, ListedSandbox } from '../containers/container-answers.js';
import { currentBootId } from './boot-id.js';
import { UNKNOWN_EXIT_CODE } from '../shim/exit-code.js';
import { ExitWatch } from '../containers/exit-watch.js';
import type { ImageStore } from '../images/image-store.js';
import { JsonRecordStore } from './json-record-store.js';
import { KeyedMutex } from './keyed-mutex.js';
import { LinuxMountHost } from '../mounts/mount-host.js';
import { isRunningProcess } from '../containers/processes.js';
import type { ContainerRecord, SandboxRecord } from './records.js';
import { hostPodIP } from '../runtime-service.js';
import { SameList } from '../containers/same-list.js';
import { shimLogTail, type ShimCommand } from '../shim/shim-launcher.js';
import { detectCgroupLayout } from '../../host/cgroup-layout.js';
import { Cgroupfs } from '../../host/cgroupfs.js';
import { EXIT_FILE, STARTED_FILE, type ExitRecord, type StartedRecord } from '../shim/shim-protocol.js';
import { wasOomKilled } from '../containers/container-cgroup.js';

export interface RuntimeServiceOptions {
  stateDir: string;
  images: ImageStore;
  shim: ShimCommand;
  logger: Logger;
  /** Epoch nanoseconds. */
  nowNs: () => bigint;
  maxLogLineBytes?: number;
  /** Where CDI specs are read from, in rising priority; default /etc/cdi, /var/run/cdi. */
  cdiSpecDirs?: readonly string[];
  /**
   * The address every sandbox reports: containers share the host's network, so a pod's IP is the
   * host's. Default: the host's first non-internal IPv4 address, else 127.0.0.1. (With an empty IP
   * the kubelet, like Go's, would take the sandbox for broken and recreate it on every sync.)
   */
  podIP?: string;
  /**
   * The host's cgroups, for sandboxes that name a cgroup_parent (container-cgroup.ts). Default: the
   * cgroupfs manager of this host, found on first use (never, while no sandbox names a parent).
   */
  cgroups?: () => Promise<Cgroupfs>;
}

export class RuntimeState {
  readonly sandboxes = new Map<string, SandboxRecord>();
  readonly containers = new Map<string, ContainerRecord>();
  readonly sandboxStore: JsonRecordStore<SandboxRecord>;
  readonly containerStore: JsonRecordStore<ContainerRecord>;
  /** One operation at a time per container. */
  readonly locks = new KeyedMutex();
  /** The unfiltered lists last answered (the relist's), reused while unchanged. */
  readonly allSandboxes = new SameList<ListedSandbox>();
  readonly allContainers = new SameList<ListedContainer>();
  readonly exits: ExitWatch;
  /** What containers' mounts are planned against, and the tools that apply them. */
  readonly mountHost = new LinuxMountHost();
  readonly podIP: string;
  /** The pod CIDR the kubelet last gave (UpdateRuntimeConfig); kept in memory, as containerd keeps it. */
  podCIDR = '';
  private readonly shimRoot: string;

  private constructor(readonly options: RuntimeServiceOptions) {
    this.podIP = options.podIP ?? hostPodIP();
    this.sandboxStore = new JsonRecordStore(join(options.stateDir, 'sandboxes'));
    this.containerStore = new JsonRecordStore(join(options.stateDir, 'containers'));
    this.shimRoot = join(options.stateDir, 'shims');
    // A monotonic clock: staleness is about real time passing, whatever clock stamps the records.
    this.exits = new ExitWatch(() => performance.now());
  }

  /** Stops watching the shims' directories; the containers keep running. */
  close(): void {
    this.exits.close();
  }

  /** Loads the records a previous runtime left, adopting containers whose processes still run. */
  static async open(options: RuntimeServiceOptions): Promise<RuntimeState> {
    const state = new RuntimeState(options);
    const sandboxes = await state.sandboxStore.loadAll();
    const containers = await state.containerStore.loadAll();
    for (const torn of [...sandboxes.torn, ...containers.torn]) {
      options.logger.warn({ file: torn.file, err: torn.error }, 'Skipping unreadable embedded runtime state file');
    }
    const bootId = currentBootId();
    for (const sandbox of sandboxes.records) {
      state.sandboxes.set(sandbox.id, sandbox);
      if (sandbox.state === 'SANDBOX_READY' && sandbox.boot_id && bootId && sandbox.boot_id !== bootId) {
        sandbox.state = 'SANDBOX_NOTREADY';
        await state.sandboxStore.put(sandbox);
      }
    }
    for (const container of containers.records) state.containers.set(container.id, container);
    let adopted = 0;
    for (const container of state.containers.values()) {
      await state.recoverInterruptedStart(container);
      await state.refresh(container);
      if (container.phase === 'running') adopted++;
    }
    options.logger.info({ sandboxes: state.sandboxes.size, containers: state.containers.size, adopted }, 'Loaded embedded runtime state');
    return state;
  }

  /** Checks, of the running containers, those that may have changed (see exit-watch.ts). */
  async refreshAll(): Promise<void> {
    for (const container of this.containers.values()) {
      if (container.phase !== 'running') continue;
      const check = this.exits.needsCheck(container.id, () => this.shimDir(container.id));
      if (check === 'none') continue;
      if (check === 'liveness' && isRunningProcess(container)) this.exits.checked(container.id);
      else await this.refresh(container);
    }
  }

  /** Moves a running container to exited when its shim says so, or when nothing of it is left. */
  async refresh(container: ContainerRecord): Promise<void> {
    if (container.phase !== 'running') return;
    const exitFile = join(this.shimDir(container.id), EXIT_FILE);
    let exit = readJsonFileSync<ExitRecord>(exitFile);
    // The shim writes the exit file and then exits: between the read above and the liveness check
    // below it may have done both (seen in CI: a container that exited 0 reported 255). Once both
    // processes are gone, the file is read again before the status is called lost.
    if (exit.kind !== 'ok' && !isRunningProcess(container)) exit = readJsonFileSync<ExitRecord>(exitFile);
    if (exit.kind === 'ok') {
      container.exit_code = exit.value.exit_code;
      container.finished_at = exit.value.finished_at;
      container.reason = exit.value.exit_code === 0 ? 'Completed' : (await wasOomKilled(this, container)) ? 'OOMKilled' : 'Error';
    } else if (!isRunningProcess(container)) {
      container.exit_code = UNKNOWN_EXIT_CODE;
      container.finished_at = this.options.nowNs().toString();
      container.reason = 'Error';
      // What the shim last said is the only trace of why it went without writing the status.
      const read = exit.kind === 'torn' ? `${EXIT_FILE} unreadable (${exit.error})` : `no ${EXIT_FILE}`;
      const tail = await shimLogTail(this.shimRoot);
      container.message = `container process and its shim are gone without an exit status (${read})${tail ? `; shim log: ${tail}` : ''}`;
    } else {
      this.exits.checked(container.id);
      return;
    }
    container.phase = 'exited';
    this.exits.forget(container.id);
    await this.containerStore.put(container);
  }

  /**
   * A record still CREATED although its shim wrote started.json: the runtime stopped (crashed) between
   * launching the container and saving the record. The container did start, so the record says so.
   */
  private async recoverInterruptedStart(container: ContainerRecord): Promise<void> {
    if (container.phase !== 'created') return;
    const started = readJsonFileSync<StartedRecord>(join(this.shimDir(container.id), STARTED_FILE));
    if (started.kind !== 'ok') return;
    const s = started.value;
    container.phase = 'running';
    container.process = { pid: s.pid, startTime: s.startTime ?? '' };
    container.shim = { pid: s.shimPid, startTime: s.shimStartTime ?? '' };
    container.started_at = s.startedAt;
    await this.containerStore.put(container);
    this.options.logger.warn({ containerId: container.id }, 'Recovered a container started just before the runtime stopped');
  }

  private hostCgroups: Promise<Cgroupfs> | undefined;

  /** The cgroup manager, made once. */
  cgroups(): Promise<Cgroupfs> {
    this.hostCgroups ??= this.options.cgroups?.() ?? detectCgroupLayout().then((layout) => new Cgroupfs(layout));
    return this.hostCgroups;
  }

  shimDir(containerId: string): string {
    return join(this.shimRoot, containerId);
  }

  containersOf(sandboxId: string): ContainerRecord[] {
    return [...this.containers.values()].filter((c) => c.pod_sandbox_id === sandboxId);
  }

  findSandbox(id: string): SandboxRecord | undefined {
    return findById(this.sandboxes, id);
  }

  findContainer(id: string): ContainerRecord | undefined {
    return findById(this.containers, id);
  }

  requireSandbox(id: string): SandboxRecord {
    const sandbox = this.findSandbox(id);
    if (!sandbox) throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', `an error occurred when try to find sandbox ${JSON.stringify(id)}: not found`);
    return sandbox;
  }

  requireContainer(id: string): ContainerRecord {
    const container = this.findContainer(id);
    if (!container) throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', `an error occurred when try to find container ${JSON.stringify(id)}: not found`);
    return container;
  }
}

/** An exact id, or a unique prefix of one (containerd's truncated-id lookup). */
function findById<T>(map: Map<string, T>, id: string): T | undefined {
  if (!id) return undefined;
  const exact = map.get(id);
  if (exact) return exact;
  const matches = [...map.keys()].filter((key) => key.startsWith(id));
  return matches.length === 1 ? map.get(matches[0]!) : undefined;
}
