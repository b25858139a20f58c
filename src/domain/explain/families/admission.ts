/**
 * Admission: where the pod came from (the API server, a static pod file, the manifest URL), then
 * whether the sync loop admitted it (its worker started) or refused it (Go's rejectPod: the reason
 * and message of the first failed check), naming for a refusal on the node's labels or taints which
 * label or taint, as the node was when admission ran.
 */
import { isPlainObject } from '../../config/decode.js';
import type { Taint } from '../../api/common-types.js';
import type { JournalRecord } from '../../journal/record.js';
import { findUntoleratedTaint } from '../../pod/tolerations.js';
import { nodeViewAt, type NodeView } from '../node-view.js';
import { podSpecAt } from '../pod-spec-at.js';
import type { FamilyExplainer, PodHistory, StoryLine } from '../story.js';

const SOURCES: Record<string, string> = {
  api: 'received from the API server',
  file: 'read from the static pod path',
  http: 'read from the static pod URL',
};

export const admissionFamily: FamilyExplainer = (history) => {
  const lines: StoryLine[] = [];
  const line = (record: JournalRecord, text: string): StoryLine => ({ t: record.t, family: 'admission', text, cites: [record.seq] });
  const sourcesSeen = new Set<string>();
  for (const record of history.records) {
    const payload = isPlainObject(record.payload) ? record.payload : {};
    if (record.kind === 'input' && record.name === 'pod.source.snapshot' && typeof payload.source === 'string' && !sourcesSeen.has(payload.source)) {
      sourcesSeen.add(payload.source);
      lines.push(line(record, SOURCES[payload.source] ?? `received from source ${payload.source}`));
    } else if (record.actor === 'syncLoop' && record.type === 'action' && record.name === 'spawn' && payload.child === `pod:${history.pod.uid}`) {
      lines.push(line(record, 'admitted'));
    } else if (record.actor === 'syncLoop' && record.type === 'action' && record.name === 'emit') {
      const event = isPlainObject(payload.event) ? payload.event : {};
      if (event.type === 'pod.admission.rejected' && isPlainObject(event.pod) && event.pod.uid === history.pod.uid) {
        const detail = refusalDetail(history, record, String(event.reason));
        lines.push(line(record, `refused at admission: ${String(event.reason)}: ${String(event.message)}${detail ? ` (${detail})` : ''}`));
      }
    }
  }
  return lines;
};

/** Which label or taint of the node a NodeAffinity or TaintToleration refusal was about. */
function refusalDetail(history: PodHistory, record: JournalRecord, reason: string): string | undefined {
  if (reason !== 'NodeAffinity' && reason !== 'TaintToleration') return undefined;
  const pod = podSpecAt(history, record.seq);
  const node = nodeViewAt(history.node ?? [], record.seq);
  if (!pod || !node) return undefined;
  if (reason === 'TaintToleration') {
    const taint = findUntoleratedTaint(node.taints, pod.spec.tolerations ?? [], (t) => t.effect === 'NoExecute');
    return taint ? `the node's taint ${taintText(taint)} is not tolerated` : undefined;
  }
  return selectorMismatch(pod.spec.nodeSelector ?? {}, node) ?? (pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ? "the node's labels match no term of the pod's required node affinity" : undefined);
}

function selectorMismatch(selector: Record<string, string>, node: NodeView): string | undefined {
  for (const [key, value] of Object.entries(selector)) {
    if (!Object.hasOwn(node.labels, key)) return `nodeSelector ${key}=${value}: the node has no label ${key}`;
    if (node.labels[key] !== value) return `nodeSelector ${key}=${value}: the node's label is ${key}=${node.labels[key]}`;
  }
  return undefined;
}

/** As kubectl shows a taint: `key=value:Effect`. */
export const taintText = (t: Taint): string => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`;
