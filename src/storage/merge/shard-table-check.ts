import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { explainOpenError } from '../archive/open-archive.js';

/** Shards up to this size get SQLite's whole quick_check, as an archive does before a crawl writes it. */
const FULL_CHECK_MAX_BYTES = 64 * 1024 * 1024;

/** The tables a merge reads besides body, whose every row the body check reads (an error there is a damaged body table). */
const MERGED_TABLES = ['meta', 'run', 'url', 'response', 'capture', 'link', 'page_text', 'query_variants'];

/*
 * Runs in a child process: one SQLite call checks a whole table, and a large one takes seconds, which
 * must not keep Ctrl-C waiting; the child is killed instead. SQLite skips CHECK constraints in
 * quick_check on a read-only connection, so the shard is attached to an empty one, as the merge attaches
 * it, while a read-only connection holds it open: closing the attachment never checkpoints a shard left
 * in WAL mode. Prints one JSON line: { problem } or { error: { code, message } }.
 */
const CHILD = String.raw`
const [modulePath, path, tablesJson] = process.argv.slice(1);
const Database = require(modulePath);
let out;
try {
  const reader = new Database(path, { readonly: true, fileMustExist: true });
  reader.prepare('SELECT count(*) FROM sqlite_schema').get();
  const checker = new Database(':memory:');
  for (const pragma of ['trusted_schema = OFF', 'cell_size_check = ON', 'query_only = ON']) checker.pragma(pragma);
  checker.prepare('ATTACH ? AS shard').run(path);
  let problem;
  for (const table of JSON.parse(tablesJson)) {
    const rows = checker.pragma(table ? 'shard.quick_check(' + table + ')' : 'shard.quick_check');
    const line = rows.map((row) => row.quick_check).find((text) => text !== 'ok');
    if (line) { problem = "SQLite's check of it says: " + line; break; }
  }
  if (!problem) {
    const dangling = checker.pragma('shard.foreign_key_check')[0];
    if (dangling) problem = dangling.table + ' row ' + dangling.rowid + ' refers to a ' + dangling.parent + ' row it does not hold';
  }
  checker.close();
  reader.close();
  out = { problem };
} catch (error) {
  out = { error: { code: String(error.code || ''), message: String(error.message) } };
}
process.stdout.write(JSON.stringify(out) + '\n');
`;

export interface ShardTableCheck {
  /**
   * What in the shard would make the merge fail part-way or drop rows without a word, or undefined: a
   * row that breaks its table's declared types, NOT NULL or CHECK constraints (SQLite stores one when
   * told to ignore CHECK, and never checks them on reading), a damaged table, or a capture naming a URL,
   * run or body the shard does not hold. 'stopped' after stop().
   */
  result: Promise<string | undefined | 'stopped'>;
  /** Kills the check wherever it is. */
  stop(): void;
}

/** Checks the whole file when small, else each table a merge reads but body, in a child process. */
export function startShardTableCheck(path: string): ShardTableCheck {
  const tables = statSync(path).size > FULL_CHECK_MAX_BYTES ? MERGED_TABLES : [null];
  const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  const child = spawn(process.execPath, ['-e', CHILD, modulePath, path, JSON.stringify(tables)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stopped = false;
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const result = new Promise<string | undefined | 'stopped'>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (stopped) return resolve('stopped');
      try {
        const line = stdout.trim();
        if (code !== 0 || line === '')
          throw new Error(`the check of ${path} ended with ${signal ?? `exit ${String(code)}`}: ${stderr.trim()}`);
        const parsed = JSON.parse(line) as { problem?: string; error?: { code: string; message: string } };
        if (parsed.error) explainOpenError(path, Object.assign(new Error(parsed.error.message), { code: parsed.error.code }));
        resolve(parsed.problem);
      } catch (error) {
        reject(error);
      }
    });
  });
  return {
    result,
    stop() {
      stopped = true;
      child.kill('SIGKILL');
    },
  };
}
