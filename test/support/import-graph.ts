// The import graph is read by scripts/architecture/read-import-graph.mjs, shared with the script that
// prints it (node scripts/architecture/import-graph.mjs); the rule it is held to is in
// scripts/architecture/dependency-rules.mjs.
import { fileURLToPath } from 'node:url';
import type { Violation } from '../../scripts/architecture/dependency-rules.mjs';
import { readImportGraph, type ImportGraph } from '../../scripts/architecture/read-import-graph.mjs';

export { readImportGraph, type ImportGraph } from '../../scripts/architecture/read-import-graph.mjs';

/** The graph of this checkout's src/. */
export function srcImportGraph(): ImportGraph {
  return readImportGraph(fileURLToPath(new URL('../../src/', import.meta.url)));
}

/** One line a reader can act on: the importing file and line, what it imports, and the rule. */
export function describeViolation(v: Violation): string {
  if (v.kind === 'room') return v.rule;
  const to = v.toPackage ? `package ${v.to}` : `src/${v.to}`;
  return `src/${v.from}:${v.line} imports ${to}${v.typeOnly ? ' (type-only)' : ''}: ${v.rule}`;
}
