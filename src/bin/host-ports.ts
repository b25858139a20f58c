import type { Logger } from 'pino';
import { FlockLockFile } from '../adapters/host/lock-file.js';
import { HostMachineInfo } from '../adapters/host/machine-info.js';
import { OsHostAddresses } from '../adapters/host/host-addresses.js';
import { ProcOomScoreWriter } from '../adapters/host/oom-score.js';
import { SystemdNotifyCommand } from '../adapters/host/sd-notify.js';
import { createRuntimeHost } from '../adapters/host/runtime-host.js';

/** The real host behind the host ports. */
export function createHostPorts(env: Record<string, string | undefined>, logger?: Logger) {
  return {
    lockFile: new FlockLockFile({ logger }),
    machineInfo: new HostMachineInfo(),
    oomScore: new ProcOomScoreWriter(),
    systemd: new SystemdNotifyCommand({ env }),
    hostAddresses: new OsHostAddresses(),
    runtimeHost: createRuntimeHost(),
  };
}
