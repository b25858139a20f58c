/** ExecSync: a command run beside the container's process, as its user, in its environment. */
import { KubeletError } from '../../domain/errors.js';
import type { ExecSyncResponse } from '../../generated/runtime/v1/ExecSyncResponse.js';
import { containerState } from './container-answers.js';
import { runExecSync } from './exec-sync.js';
import type { RuntimeState } from './runtime-state.js';

export async function execSync(state: RuntimeState, id: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResponse> {
  const container = state.requireContainer(id);
  await state.refresh(container);
  if (container.phase !== 'running') {
    throw new KubeletError('KLT_ERR_CRI_FAILED', `container ${container.id} is in ${containerState(container)} state: cannot exec`);
  }
  return runExecSync({
    argv: cmd, env: container.env, cwd: container.working_dir, timeoutSeconds,
    ...(container.run_as_user !== undefined ? { uid: container.run_as_user } : {}),
    ...(container.run_as_group !== undefined ? { gid: container.run_as_group } : {}),
  });
}
