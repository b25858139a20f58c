/**
 * `/debug/explain/<namespace>/<name>`: a pod's story, as `kubelet-ts explain` tells it (plain text,
 * each line citing its journal records); JSON with `?format=json` or `Accept: application/json`.
 * `/debug/explain/<pod>` takes what the command takes after the log: a name one namespace alone has,
 * or a uid (the visualizer asks by the uid in a pod actor's id). An unknown pod is a 404 naming the
 * closest pods the journal knows.
 *
 * A story needs the pod's whole history, so it is not told from the visualizer's bounded memory:
 * on a live node from the journal's files, read on each request (journal-history.ts); in
 * `kubelet-ts visualize` from the recorded log.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isPodNotFound } from '../../domain/explain/explain.js';
import { renderNotFound, renderStory, storyJson } from '../../domain/explain/render-story.js';
import type { PodNotFound, Story } from '../../domain/explain/story.js';

/** explainPod over the run's whole journal; rejects when the journal cannot be read. */
export type ExplainPod = (query: string) => Promise<Story | PodNotFound>;

interface ExplainRequest {
  Params: { namespace?: string; name?: string; pod?: string };
  Querystring: { format?: string };
}

export function registerExplain(app: FastifyInstance, explain: ExplainPod | undefined): void {
  const answer = async (req: FastifyRequest<ExplainRequest>, reply: FastifyReply) => {
    const { namespace, name, pod } = req.params;
    const query = pod ?? `${namespace}/${name}`;
    const json = wantsJson(req.query.format, req.headers.accept);
    if (json === null) return reply.code(400).send({ error: `format=${req.query.format}: want text or json` });
    if (!explain) return reply.code(404).send({ error: 'the journal is not connected to the debug server' });
    let story: Story | PodNotFound;
    try {
      story = await explain(query);
    } catch (err) {
      return reply.code(503).send({ error: `the journal cannot be read: ${(err as Error).message}` });
    }
    if (isPodNotFound(story)) {
      const message = renderNotFound(story);
      reply.code(404);
      return json ? reply.send({ error: message.trim(), ...story }) : reply.type('text/plain; charset=utf-8').send(message);
    }
    return json
      ? reply.type('application/json; charset=utf-8').send(storyJson(story))
      : reply.type('text/plain; charset=utf-8').send(renderStory(story));
  };
  app.get<ExplainRequest>('/debug/explain/:namespace/:name', answer);
  app.get<ExplainRequest>('/debug/explain/:pod', answer);
}

/** `?format=` decides; without it, a client that accepts JSON gets JSON; null for an unknown format. */
function wantsJson(format: string | undefined, accept: string | undefined): boolean | null {
  if (format === 'json') return true;
  if (format === 'text') return false;
  if (format !== undefined) return null;
  return accept !== undefined && accept.includes('application/json');
}
