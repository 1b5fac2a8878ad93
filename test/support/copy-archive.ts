import { copyFileSync, existsSync } from 'node:fs';

/** Copies a closed archive, with its WAL if one was left, as a second archive of the same crawl. */
export function copyArchive(from: string, to: string): void {
  copyFileSync(from, to);
  if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
}
