// Module resolution hooks: each resolved URL is appended as a line to the file named by MODULE_LOG.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (process.env.MODULE_LOG) appendFileSync(process.env.MODULE_LOG, `${resolved.url}\n`);
  return resolved;
}
