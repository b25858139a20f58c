/**
 * `GET|POST /stats/summary[?only_cpu_and_memory=true]`: the summary API (stats/v1alpha1 Summary),
 * on the kubelet server and the read-only port alike, as Go's stats handler registers it on both.
 * A failed read of the runtime or host is 500 `Internal Error: <what failed>` (Go's handleError).
 * Too many requests already waiting for the same summary (KLT_ERR_STATS_BUSY, see
 * src/actors/stats/coalesced-read.ts) is 503 with `Retry-After: 1`; Go has no such bound.
 *
 * Where we differ: Go takes only the exact value `true` and treats anything else (`yes`, `1`, two
 * values) as false; here anything but `true` or `false`, once, is a 400 naming the value.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { KubeletError } from '../../../domain/errors.js';
import { summaryJson } from '../../../domain/stats/summary-json.js';
import type { Summary } from '../../../domain/stats/summary-types.js';
import type { KubeletView } from '../../../ports/kubelet-view.js';
import { renderedPerValue } from './rendered-per-value.js';
import { reply, replyJson, replyText, TEXT_PLAIN } from './reply.js';
import type { RouteRequest, Router } from './router.js';

type Query = Record<string, string | string[] | undefined>;

export function parseOnlyCpuAndMemory(query: Query): { ok: true; value: boolean } | { ok: false; reason: string } {
  const raw = query.only_cpu_and_memory;
  if (raw === undefined) return { ok: true, value: false };
  if (Array.isArray(raw)) return { ok: false, reason: `only_cpu_and_memory given ${raw.length} times; give it once, true or false` };
  if (raw === 'true' || raw === 'false') return { ok: true, value: raw === 'true' };
  return { ok: false, reason: `invalid only_cpu_and_memory ${JSON.stringify(raw)}: must be true or false` };
}

export function registerStatsSummary(router: Router, view: KubeletView, logger?: Logger): void {
  // Requests that shared one summary read get the same object: render it once for all of them,
  // rather than once per request when a burst of them arrives together.
  const body = { full: renderedPerValue(summaryBody), cpuAndMemory: renderedPerValue(summaryBody) };
  const handler = async (req: RouteRequest, res: ServerResponse) => {
    const only = parseOnlyCpuAndMemory(req.query);
    if (!only.ok) return replyText(res, 400, `${only.reason}\n`);
    let rendered: Buffer;
    try {
      const summary = await view.statsSummary(only.value);
      rendered = (only.value ? body.cpuAndMemory : body.full)(summary);
    } catch (err) {
      if (err instanceof KubeletError && err.code === 'KLT_ERR_STATS_BUSY') {
        return reply(res, 503, `${err.message}\n`, { type: TEXT_PLAIN, headers: { 'retry-after': '1' } });
      }
      logger?.error({ err, path: '/stats/summary' }, 'Stats summary failed');
      return replyText(res, 500, `Internal Error: ${(err as Error).message}\n`);
    }
    return replyJson(res, rendered);
  };
  router.add(['GET', 'POST'], '/stats/summary', handler);
}

const summaryBody = (summary: Summary) => Buffer.from(summaryJson(summary));
