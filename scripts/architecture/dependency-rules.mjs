// The dependency rule of src/, as data: the floors the rooms stand on, which packages only one room
// may import, and the imports allowed against them, each with its reason. docs/architecture.md draws
// it; test/architecture/import-graph.test.ts holds the code to it.

/**
 * Top floor first. A file may import its own room and any room on a lower floor; on a floor whose
 * rooms are `independent`, not each other. A room is the first folder under src/; a file directly in
 * src/ is a room of its own.
 */
export const FLOORS = [
  {
    name: 'entry points',
    rooms: ['cli', 'index.ts'],
    independent: true,
    does: 'the command line, and the package door that exports the library',
  },
  {
    name: 'library',
    rooms: ['library'],
    independent: true,
    does: 'every capability, from startRun() and crawlWorker() to exportArchive() and serve(): the API the CLI and programs call; src/library/index.ts is its entry',
  },
  {
    name: 'checks',
    rooms: ['qa', 'mcp'],
    independent: true,
    does: "checks and services over a whole archive that run commands' work together: `crawlite qa` replays it (serve) in Chromium (browser); `crawlite mcp` answers a model's tools with serve's search and SQL runners",
  },
  {
    name: 'commands',
    rooms: ['serve', 'export', 'import', 'merge'],
    independent: true,
    does: 'the work of one command each, over an archive',
  },
  {
    name: 'run',
    rooms: ['run'],
    independent: true,
    does: 'one crawl run: open, lock and prepare the archive, fill the ports, run the pipeline',
  },
  {
    name: 'adapters',
    rooms: ['storage', 'http', 'pg', 'browser'],
    independent: true,
    does: "implement the pipeline's ports: SQLite, HTTP, PostgreSQL, a browser",
  },
  { name: 'pipeline', rooms: ['pipeline'], independent: true, does: 'the crawl itself, and its ports (src/pipeline/ports.ts)' },
  {
    name: 'toolkits',
    rooms: ['html', 'text', 'url', 'markdown', 'crawlite-error.ts', 'format-bytes.ts'],
    independent: false,
    does: 'pure helpers any room may use; they may use one another',
  },
];

/** A package only these rooms may import (a type-only import counts: the room would still know the driver). */
export const PACKAGE_OWNERS = {
  'better-sqlite3': ['storage'],
};

/**
 * Imports that break the floors today, kept on purpose: `from` and `to` are paths under src/, and
 * `reason` says why in one line. An entry that matches no import fails the test, so the list only
 * shrinks with the code.
 */
export const EXCEPTIONS = [
  {
    from: 'import/original-headers.ts',
    to: 'export/http-blocks.ts',
    reason: 'import undoes the header renaming export writes (X-Crawlite-Original-, none): one spelling for writer and reader',
  },
];

/**
 * The command line is a shell over the library: outside its own room it imports only what the library
 * publishes (src/library/index.ts, and the modules that entry re-exports, each loadable alone so a
 * command loads only what it runs) and these toolkits; type-only imports count. Whatever the command
 * line can do, a program can do through the library.
 */
export const SHELL = {
  room: 'cli',
  entry: 'library/index.ts',
  toolkits: ['crawlite-error.ts', 'format-bytes.ts'],
};

const floorOf = new Map(FLOORS.flatMap((floor, i) => floor.rooms.map((room) => [room, { ...floor, rank: FLOORS.length - 1 - i }])));

/** The floor of a room, or undefined for a room no floor names. */
export function floorOfRoom(room) {
  return floorOf.get(room);
}

const unplaced = (room) =>
  `room ${room} stands on no floor: place it in FLOORS (scripts/architecture/dependency-rules.mjs) and in docs/architecture.md`;

/** Why an import from room `fromRoom` to room `toRoom` breaks the rule, or undefined when it does not. */
export function roomRuleBroken(fromRoom, toRoom) {
  if (fromRoom === toRoom) return undefined;
  const from = floorOf.get(fromRoom);
  const to = floorOf.get(toRoom);
  if (!from) return unplaced(fromRoom);
  if (!to) return unplaced(toRoom);
  if (to.rank > from.rank)
    return `${fromRoom} (${from.name}) must not import ${toRoom} (${to.name}, a floor above): dependencies point down`;
  if (to.rank === from.rank && from.independent) return `${fromRoom} and ${toRoom} (${from.name}) must not import each other`;
  return undefined;
}

/** Why a room importing a package breaks the rule, or undefined. */
export function packageRuleBroken(fromRoom, name) {
  const owners = PACKAGE_OWNERS[name];
  if (!owners || owners.includes(fromRoom)) return undefined;
  return `only ${owners.join(', ')} may import ${name}`;
}

/** The library's modules a shell may import: the entry, and every module the entry re-exports. */
export function publishedModules(graph) {
  const room = SHELL.entry.split('/')[0];
  const reexported = graph.imports
    .filter((edge) => edge.from === SHELL.entry && edge.kind === 'export' && edge.toRoom === room)
    .map((edge) => edge.to);
  return new Set([SHELL.entry, ...reexported]);
}

/** The imports of the shell (src/cli) that reach past the library's published modules and the toolkits it may use. */
export function shellViolations(graph) {
  const published = publishedModules(graph);
  const libraryRoom = SHELL.entry.split('/')[0];
  const allowed = (edge) =>
    edge.toRoom === SHELL.room || (edge.toRoom === libraryRoom ? published.has(edge.to) : SHELL.toolkits.includes(edge.toRoom));
  return graph.imports
    .filter((edge) => edge.fromRoom === SHELL.room && !allowed(edge))
    .map((edge) => ({
      from: edge.from,
      to: edge.to ?? edge.specifier,
      toPackage: false,
      line: edge.line,
      kind: edge.kind,
      typeOnly: edge.typeOnly,
      rule:
        edge.toRoom === libraryRoom
          ? `${SHELL.room} imports only what the library publishes: src/${SHELL.entry} or a module it re-exports`
          : `${SHELL.room} is a shell over the library: it imports src/${SHELL.entry} (or a module it re-exports) and the toolkits ${SHELL.toolkits.join(', ')}, not ${edge.toRoom}`,
      exception: undefined,
    }));
}

/**
 * Every import of `graph` (from read-import-graph.mjs) that breaks the rule, excepted or not:
 * { from, to, toPackage, line, kind, typeOnly, rule, exception } (`to` is the package's name for a package rule;
 * `exception` is the EXCEPTIONS entry that allows it). Also rooms no floor names, with no import at all.
 */
export function violations(graph) {
  const found = [];
  for (const edge of graph.imports) {
    // A room on no floor is reported once, below, not at each of its imports.
    if (!floorOf.has(edge.fromRoom) || !floorOf.has(edge.toRoom)) continue;
    const rule = roomRuleBroken(edge.fromRoom, edge.toRoom);
    if (!rule) continue;
    const exception = EXCEPTIONS.find((allowed) => allowed.from === edge.from && allowed.to === edge.to);
    found.push({
      from: edge.from,
      to: edge.to,
      toPackage: false,
      line: edge.line,
      kind: edge.kind,
      typeOnly: edge.typeOnly,
      rule,
      exception,
    });
  }
  // The floors already refuse what runs up; the shell's rule is narrower, reported once per import.
  const floorBroken = new Set(found.map((v) => `${v.from}:${v.line}:${v.to}`));
  for (const v of shellViolations(graph)) if (!floorBroken.has(`${v.from}:${v.line}:${v.to}`)) found.push(v);
  for (const use of graph.packages) {
    const rule = packageRuleBroken(use.fromRoom, use.name);
    if (rule)
      found.push({
        from: use.from,
        to: use.name,
        toPackage: true,
        line: use.line,
        kind: use.kind,
        typeOnly: use.typeOnly,
        rule,
        exception: undefined,
      });
  }
  for (const room of new Set(graph.files.map((file) => file.room))) {
    if (!floorOf.has(room))
      found.push({
        from: room,
        to: room,
        toPackage: false,
        line: 0,
        kind: 'room',
        typeOnly: false,
        rule: unplaced(room),
        exception: undefined,
      });
  }
  return found;
}
