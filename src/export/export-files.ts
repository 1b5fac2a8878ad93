import { resolve } from 'node:path';
import { ExportPathError } from './export-errors.js';
import { OutputFile } from './output-file.js';

/** What an export is asked to write. */
export interface ExportTargets {
  db: string;
  warc?: string;
  cdxj?: string;
  wacz?: string;
  force: boolean;
}

/**
 * The files of one export, each written under a temporary name: the outputs
 * asked for, and the parts a WACZ is made of (its WARC, when no --warc is
 * asked for, its index and its pages), which never take a name of their own.
 */
export class ExportFiles {
  readonly warc: OutputFile;
  readonly cdxj: OutputFile | undefined;
  readonly wacz: OutputFile | undefined;
  readonly waczIndex: OutputFile | undefined;
  readonly waczPages: OutputFile | undefined;
  private readonly outputs: OutputFile[];

  /** Refuses, before anything is written, outputs that cannot be written or would overwrite without --force. */
  constructor(targets: ExportTargets) {
    const paths = [targets.warc, targets.cdxj, targets.wacz].filter((path): path is string => path !== undefined);
    for (const path of paths) {
      if (resolve(path) === resolve(targets.db)) throw new ExportPathError(path, 'is the archive being exported; name another file');
      OutputFile.check(path, targets.force);
    }
    if (new Set(paths.map((path) => resolve(path))).size < paths.length)
      throw new ExportPathError(paths[0]!, 'named for two outputs; give each its own file');
    // The WACZ holds the same WARC bytes: written once, copied in.
    this.warc = new OutputFile(targets.warc ?? waczWarc(targets.wacz!));
    this.cdxj = targets.cdxj === undefined ? undefined : new OutputFile(targets.cdxj);
    this.wacz = targets.wacz === undefined ? undefined : new OutputFile(targets.wacz);
    this.waczIndex = targets.wacz === undefined ? undefined : new OutputFile(`${targets.wacz}.index.cdxj`);
    this.waczPages = targets.wacz === undefined ? undefined : new OutputFile(`${targets.wacz}.pages.jsonl`);
    this.outputs = [
      ...(targets.warc !== undefined ? [this.warc] : []),
      ...(this.cdxj ? [this.cdxj] : []),
      ...(this.wacz ? [this.wacz] : []),
    ];
    // Only once the export is sure to go ahead (a refused one touches nothing); the WACZ's
    // own WARC name too, left by an export of it without --warc.
    const written = [...this.all().map((file) => file.path), ...(targets.wacz !== undefined ? [waczWarc(targets.wacz)] : [])];
    for (const path of new Set(written)) OutputFile.removeLeftovers(path);
  }

  /** The outputs asked for, in order. */
  get written(): string[] {
    return this.outputs.map((file) => file.path);
  }

  /** Every output complete: each into place. */
  commit(): void {
    for (const file of this.outputs) file.commit();
  }

  /** Removes every temporary file not committed. */
  discard(): void {
    for (const file of this.all()) file.discard();
  }

  private all(): OutputFile[] {
    return [this.warc, this.cdxj, this.wacz, this.waczIndex, this.waczPages].filter((file): file is OutputFile => file !== undefined);
  }
}

/** Where the WARC a WACZ holds is written when no --warc is asked for. */
const waczWarc = (wacz: string): string => `${wacz}.warc.gz`;
