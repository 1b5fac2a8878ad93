import type { ImportGraph, ImportKind } from './read-import-graph.mjs';

export interface Floor {
  name: string;
  rooms: string[];
  independent: boolean;
  does: string;
}

export interface Exception {
  from: string;
  to: string;
  reason: string;
}

export interface Violation {
  /** A path under src/; the room's name for a room on no floor. */
  from: string;
  /** A path under src/, or a package's name. */
  to: string;
  toPackage: boolean;
  line: number;
  kind: ImportKind | 'room';
  typeOnly: boolean;
  rule: string;
  exception: Exception | undefined;
}

export declare const FLOORS: Floor[];
export declare const PACKAGE_OWNERS: Record<string, string[]>;
export declare const EXCEPTIONS: Exception[];
export declare function floorOfRoom(room: string): (Floor & { rank: number }) | undefined;
export declare function roomRuleBroken(fromRoom: string, toRoom: string): string | undefined;
export declare function packageRuleBroken(fromRoom: string, name: string): string | undefined;
export declare function violations(graph: ImportGraph): Violation[];
export declare const SHELL: { room: string; entry: string; toolkits: string[] };
export declare function publishedModules(graph: ImportGraph): Set<string>;
export declare function shellViolations(graph: ImportGraph): Violation[];
