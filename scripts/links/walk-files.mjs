import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` whose name ends with `suffix`, in a stable order. */
export function walk(dir, suffix, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, suffix, out);
    else if (name.endsWith(suffix)) out.push(path);
  }
  return out;
}
