#!/usr/bin/env node
// Prints the house src/ is: each room's floor, files and lines; which rooms import which (edges
// counted by import, type-only ones apart); the packages each room imports; and every import that
// breaks the dependency rule (scripts/architecture/dependency-rules.mjs), excepted or not.
//   node scripts/architecture/import-graph.mjs [src]
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { floorOfRoom, violations } from './dependency-rules.mjs';
import { readImportGraph } from './read-import-graph.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const graph = readImportGraph(resolve(process.argv[2] ?? resolve(REPO, 'src')));

/** Text left-aligned, numbers right-aligned. */
const table = (header, rows) => {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => String(row[i]).length)));
  const right = header.map((_, i) => rows.length > 0 && typeof rows[0][i] === 'number');
  const line = (row) =>
    row
      .map((cell, i) => (right[i] ? String(cell).padStart(widths[i]) : String(cell).padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
};
const count = (map, key, typeOnly) => {
  const entry = map.get(key) ?? { imports: 0, typeOnly: 0 };
  entry.imports += 1;
  if (typeOnly) entry.typeOnly += 1;
  map.set(key, entry);
};

const rooms = new Map();
for (const { room, lines } of graph.files) {
  const entry = rooms.get(room) ?? { files: 0, lines: 0 };
  entry.files += 1;
  entry.lines += lines;
  rooms.set(room, entry);
}
const byFloor = [...rooms].sort(([a], [b]) => (floorOfRoom(b)?.rank ?? 99) - (floorOfRoom(a)?.rank ?? 99) || a.localeCompare(b));
const total = graph.files.reduce((sum, file) => sum + file.lines, 0);
console.log(`The house: ${graph.files.length} files, ${total} lines\n`);
console.log(
  table(
    ['room', 'floor', 'files', 'lines'],
    [...byFloor.map(([room, { files, lines }]) => [room, floorOfRoom(room)?.name ?? '(none)', files, lines])],
  ),
);

const edges = new Map();
for (const edge of graph.imports) if (edge.fromRoom !== edge.toRoom) count(edges, `${edge.fromRoom}\t${edge.toRoom}`, edge.typeOnly);
const order = new Map(byFloor.map(([room], i) => [room, i]));
const edgeRows = [...edges]
  .map(([key, entry]) => [...key.split('\t'), entry])
  .sort(([a1, a2], [b1, b2]) => (order.get(a1) ?? 99) - (order.get(b1) ?? 99) || (order.get(a2) ?? 99) - (order.get(b2) ?? 99));
console.log(`\nRoom -> room (imports across rooms; type-only: erased at build)\n`);
console.log(
  table(
    ['from', 'to', 'imports', 'type-only'],
    edgeRows.map(([from, to, entry]) => [from, to, entry.imports, entry.typeOnly]),
  ),
);

const packages = new Map();
for (const use of graph.packages) if (!use.name.startsWith('node:')) count(packages, `${use.fromRoom}\t${use.name}`, use.typeOnly);
console.log(`\nRoom -> package (node: built-ins left out)\n`);
console.log(
  table(
    ['room', 'package', 'imports', 'type-only'],
    [...packages]
      .sort(([a], [b]) => (order.get(a.split('\t')[0]) ?? 99) - (order.get(b.split('\t')[0]) ?? 99) || a.localeCompare(b))
      .map(([key, entry]) => [...key.split('\t'), entry.imports, entry.typeOnly]),
  ),
);

const unresolved = graph.imports.filter((edge) => edge.to === undefined);
if (unresolved.length)
  console.log(
    `\nImports that name no file of src/:\n${unresolved.map((edge) => `  ${edge.from}:${edge.line} '${edge.specifier}'`).join('\n')}`,
  );

const broken = violations(graph);
console.log(
  `\nImports against the rule: ${broken.filter((v) => !v.exception).length}, excepted: ${broken.filter((v) => v.exception).length}`,
);
for (const v of broken) {
  const what =
    v.kind === 'room' ? v.from : `src/${v.from}:${v.line} -> ${v.toPackage ? v.to : `src/${v.to}`}${v.typeOnly ? ' (type-only)' : ''}`;
  console.log(
    `  ${v.exception ? 'excepted' : 'BROKEN  '} ${what}\n           ${v.rule}${v.exception ? `\n           because ${v.exception.reason}` : ''}`,
  );
}
