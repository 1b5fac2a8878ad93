export interface SourceFile {
  /** Relative to src/, with '/'. */
  file: string;
  room: string;
  lines: number;
}

export type ImportKind = 'import' | 'export' | 'dynamic' | 'type' | 'require';

export interface ImportEdge {
  from: string;
  /** The file of src/ the specifier names; undefined when it names none. */
  to: string | undefined;
  fromRoom: string;
  /** '?' when `to` is undefined; '..' for a specifier leaving src/. */
  toRoom: string;
  specifier: string;
  kind: ImportKind;
  typeOnly: boolean;
  line: number;
}

export interface PackageUse {
  from: string;
  fromRoom: string;
  specifier: string;
  /** The package: 'undici' for 'undici/types/header.js', '@scope/name' for a scoped one. */
  name: string;
  kind: ImportKind;
  typeOnly: boolean;
  line: number;
}

export interface ImportGraph {
  files: SourceFile[];
  imports: ImportEdge[];
  packages: PackageUse[];
}

export declare function roomOf(file: string): string;
export declare function readImportGraph(srcDir: string): ImportGraph;
