// Module hooks (they run on a loader thread): each resolved URL is written at once, so the log is
// complete by the time the import that asked for it returns.
import { appendFileSync } from 'node:fs';

let log;

export function initialize(data) {
  log = data.log;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (log) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
