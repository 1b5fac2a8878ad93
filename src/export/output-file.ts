import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, lstatSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ExportPathError } from './export-errors.js';

/**
 * A file written under a temporary name next to where it goes, renamed into
 * place only when complete: a failed or interrupted export leaves nothing
 * half-written under the name asked for.
 */
export class OutputFile {
  readonly temp: string;
  private done = false;

  constructor(readonly path: string) {
    this.temp = join(dirname(resolve(path)), `.${basename(path)}.${randomBytes(4).toString('hex')}.partial`);
  }

  /**
   * Removes what an earlier export writing `path` left when it was killed: files named
   * as this class names its temporary files for that path (and the sort chunks made
   * next to them), in its directory, and nothing else. Call it before writing any.
   */
  static removeLeftovers(path: string): void {
    const dir = dirname(resolve(path));
    const own = new RegExp(`^\\.${escapeRegExp(basename(path))}\\.[0-9a-f]{8}\\.partial(?:\\.sort-\\d+)?$`);
    for (const name of readdirSync(dir)) {
      if (!own.test(name)) continue;
      try {
        // A file only: a directory or link under that name is not ours to remove.
        if (lstatSync(join(dir, name), { throwIfNoEntry: false })?.isFile()) rmSync(join(dir, name), { force: true });
      } catch {
        // Housekeeping: a leftover that cannot be removed does not stop this export.
      }
    }
  }

  /** Refuses, before anything is written, an output in a missing directory, a directory, or an existing file without `force`. */
  static check(path: string, force: boolean): void {
    const dir = dirname(resolve(path));
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ExportPathError(path, `directory ${dir} does not exist`);
    try {
      accessSync(dir, constants.W_OK);
    } catch (error) {
      throw new ExportPathError(path, `directory ${dir} is not writable`, { cause: error });
    }
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) throw new ExportPathError(path, 'is a directory; name a file to write');
    if (!force) throw new ExportPathError(path, 'already exists; pass --force to overwrite it');
  }

  commit(): void {
    renameSync(this.temp, this.path);
    this.done = true;
  }

  /** Removes the temporary file unless it was committed. */
  discard(): void {
    if (!this.done) rmSync(this.temp, { force: true });
  }
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
