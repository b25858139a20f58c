/**
 * A strict shape check of a /stats/summary body against the Go types (k8s.io/kubelet
 * pkg/apis/stats/v1alpha1): required fields present with the right JSON types, optional ones of the
 * right type when present, no field the Go types do not have. Returns the problems, [] when none.
 */
type Json = unknown;
type Check = (v: Json, path: string, out: string[]) => void;

const isObj = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

const str: Check = (v, p, out) => { if (typeof v !== 'string') out.push(`${p}: want string, got ${JSON.stringify(v)}`); };
const time: Check = (v, p, out) => {
  if (typeof v !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v)) out.push(`${p}: want an RFC 3339 time, got ${JSON.stringify(v)}`);
};
const uint: Check = (v, p, out) => { if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) out.push(`${p}: want an unsigned integer, got ${JSON.stringify(v)}`); };
const bool: Check = (v, p, out) => { if (typeof v !== 'boolean') out.push(`${p}: want a boolean, got ${JSON.stringify(v)}`); };
const int: Check = (v, p, out) => { if (typeof v !== 'number' || !Number.isInteger(v)) out.push(`${p}: want an integer, got ${JSON.stringify(v)}`); };
const list = (item: Check): Check => (v, p, out) => {
  if (!Array.isArray(v)) out.push(`${p}: want an array, got ${JSON.stringify(v)}`);
  else v.forEach((x, i) => item(x, `${p}[${i}]`, out));
};

function object(required: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  return (v, p, out) => {
    if (!isObj(v)) { out.push(`${p}: want an object, got ${JSON.stringify(v)}`); return; }
    for (const [k, c] of Object.entries(required)) {
      if (!(k in v)) out.push(`${p}.${k}: missing`);
      else c(v[k], `${p}.${k}`, out);
    }
    for (const [k, x] of Object.entries(v)) {
      if (k in required) continue;
      const c = optional[k];
      if (!c) out.push(`${p}.${k}: not a field of the Go type`);
      else c(x, `${p}.${k}`, out);
    }
  };
}

const cpu = object({ time }, { usageNanoCores: uint, usageCoreNanoSeconds: uint });
const memory = object({ time }, { availableBytes: uint, usageBytes: uint, workingSetBytes: uint, rssBytes: uint, pageFaults: uint, majorPageFaults: uint });
// metav1.Time of a zero FsStats.Time marshals as null in Go; a runtime may send that.
const fs = object({}, { time, availableBytes: uint, capacityBytes: uint, usedBytes: uint, inodesFree: uint, inodes: uint, inodesUsed: uint });
const swap = object({ time }, { swapAvailableBytes: uint, swapUsageBytes: uint });
const iface = { name: str, rxBytes: uint, rxErrors: uint, txBytes: uint, txErrors: uint };
const network = object({ time }, { ...iface, interfaces: list(object({ name: str }, iface)) });
const container = object({ name: str, startTime: time }, { cpu, memory, rootfs: fs, logs: fs, swap, accelerators: list(object({})), userDefinedMetrics: list(object({})) });
const volume = object({}, { time, availableBytes: uint, capacityBytes: uint, usedBytes: uint, inodesFree: uint, inodes: uint, inodesUsed: uint, name: str, pvcRef: object({ name: str, namespace: str }), volumeHealthStats: object({ abnormal: bool }) });

export const summaryShape = object({
  node: object({ nodeName: str, startTime: time }, {
    systemContainers: list(container), cpu, memory, network, fs,
    runtime: object({}, { imageFs: fs, containerFs: fs }),
    rlimit: object({ time }, { maxpid: int, curproc: int }),
    swap,
  }),
  pods: list(object({ podRef: object({ name: str, namespace: str, uid: str }), startTime: time, containers: list(container) }, {
    cpu, memory, network, volume: list(volume), 'ephemeral-storage': fs, process_stats: object({}, { process_count: uint }), swap,
  })),
});

export function summaryShapeProblems(body: Json): string[] {
  const out: string[] = [];
  summaryShape(body, 'summary', out);
  return out;
}
