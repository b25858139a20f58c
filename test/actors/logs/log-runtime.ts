/**
 * A runtime as the container log manager and the legacy links see it, over real files in a
 * temporary directory: each container writes its CRI log there, and ReopenContainerLog creates the
 * file again at its path, as containerd does. Calls are recorded; `reopenFails` makes reopens fail.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeletError } from '../../../src/domain/errors.js';
import type { Container, ContainerState, ContainerStatus, CriClient, CriRuntimeService } from '../../../src/ports/cri.js';

export interface LogContainer { id: string; state: ContainerState; log: string; pod: string; namespace: string; name: string }

export class LogRuntime {
  readonly dir = mkdtempSync(join(tmpdir(), 'kts-logrot-'));
  readonly containers = new Map<string, LogContainer>();
  readonly calls: string[] = [];
  reopenFails = false;
  /** ListContainers calls: a log manager pass starts with one. */
  lists = 0;
  /** Reopens in progress at once, the most seen (the workers' bound). */
  inFlight = 0;
  maxInFlight = 0;

  add(id: string, bytes: number, state: ContainerState = 'CONTAINER_RUNNING'): LogContainer {
    const c = { id, state, log: join(this.dir, `${id}.log`), pod: `pod-${id}`, namespace: 'ns', name: 'app' };
    writeFileSync(c.log, 'x'.repeat(bytes));
    this.containers.set(id, c);
    return c;
  }

  private status(c: LogContainer): ContainerStatus {
    // Only what the log manager and the links read; the rest of a real status is left out.
    return {
      id: c.id, state: c.state, log_path: c.log, metadata: { name: c.name, attempt: 0 },
      labels: { 'io.kubernetes.pod.name': c.pod, 'io.kubernetes.pod.namespace': c.namespace, 'io.kubernetes.container.name': c.name },
    } as Partial<ContainerStatus> as ContainerStatus;
  }

  private must(id: string): LogContainer {
    const c = this.containers.get(id);
    if (!c) throw new KubeletError('KLT_ERR_CRI_NOT_FOUND', `container ${id} not found`);
    return c;
  }

  /** The calls the log manager and the links make; a test hands it where a CriClient is wanted. */
  client(): CriClient {
    const runtime: Partial<CriRuntimeService> = {
      listContainers: async () => (this.lists++, [...this.containers.values()]).map((c) => ({ id: c.id, state: c.state }) as Partial<Container> as Container),
      containerStatus: async (id) => {
        this.calls.push(`containerStatus ${id}`);
        return { status: this.status(this.must(id)), info: {} };
      },
      // The container is named by its config's metadata, and its log goes where the config says.
      createContainer: async (_sandboxId, config) => {
        const id = config.metadata?.name ?? '';
        this.calls.push(`createContainer ${id}`);
        this.add(id, 10);
        return id;
      },
      startContainer: async (id) => {
        this.calls.push(`startContainer ${id}`);
      },
      removeContainer: async (id) => {
        this.calls.push(`removeContainer ${id}`);
        this.must(id);
        this.containers.delete(id);
      },
      reopenContainerLog: async (id) => {
        this.calls.push(`reopenContainerLog ${id}`);
        this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
        // A simulated call length, not a wait: long enough that the workers' calls overlap, so
        // maxInFlight shows how many run at once.
        await new Promise((r) => setTimeout(r, 5)); // the fake call's length, not a wait for an event
        this.inFlight--;
        if (this.reopenFails) throw new KubeletError('KLT_ERR_CRI_FAILED', 'injected reopen failure');
        writeFileSync(this.must(id).log, '', { flag: 'a' });
      },
    };
    return { runtime: runtime as CriRuntimeService, images: {} as CriClient['images'], close: () => undefined };
  }
}
