import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ExportPathError } from './export-errors.js';

/** Refuses a directory that is a file, or one with something in it unless `force`. Creates it if missing. */
export function prepareMarkdownDir(dir: string, force: boolean): string {
  const root = resolve(dir);
  const stat = lstatSync(root, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) throw new ExportPathError(dir, 'is not a directory; name a directory for --markdown');
  if (stat && !force && readdirSync(root).length > 0) throw new ExportPathError(dir, 'is not empty; pass --force to write into it');
  try {
    mkdirSync(root, { recursive: true });
  } catch (error) {
    throw new ExportPathError(dir, `cannot be created (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  return root;
}

/**
 * Opens `path` (relative, with `/`) under `root` to write, refusing anything that would land outside it:
 * a path that climbs out, or a directory or file on the way that is a symbolic link (left by an earlier
 * run with --force, or by someone else).
 */
export function openInside(root: string, path: string): number {
  const target = resolve(root, path);
  const rel = relative(root, target);
  if (rel === '' || rel.startsWith('..') || rel.split(sep).includes('..'))
    throw new ExportPathError(target, 'is outside the export directory');
  let dir = root;
  for (const part of relative(root, dirname(target)).split(sep).filter(Boolean)) {
    dir = join(dir, part);
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (!stat) mkdirSync(dir);
    else if (!stat.isDirectory())
      throw new ExportPathError(dir, 'is not a directory (a link or a file); remove it or export into an empty directory');
  }
  // O_NOFOLLOW: a symbolic link where the file goes is refused, never followed.
  return openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
}

/** Writes `text` at `path` under `root`, as openInside opens it. */
export function writeInside(root: string, path: string, text: string): void {
  const fd = openInside(root, path);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
