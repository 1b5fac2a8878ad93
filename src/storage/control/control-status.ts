import type { ControlSettingsChange, ControlSource, LiveState } from '../../pipeline/ports.js';

// What another process reads of a crawl it steers, as plain types: the library publishes them without the
// SQLite driver's.

/** The controls as stored: what a run starts from (a crawl killed while paused resumes paused). */
export interface StoredControls extends ControlSettingsChange {
  /** Who paused the crawl, when it is paused. */
  pausedBy?: ControlSource;
}

/** The crawl's live row, as it wrote it last. */
export interface LiveRow extends LiveState {
  updatedAt: string;
}

/** A request as control_request keeps it. */
export interface RequestRow {
  id: number;
  requestedAt: string;
  requestedBy: string;
  command: string;
  argument: string | null;
  appliedAt: string | null;
  outcome: string | null;
}

/** How a crawl stands, as another process reads it. */
export interface ControlStatus {
  /** A crawl runs on the archive now: its live row is fresh and not `ended`. */
  running: boolean;
  live?: LiveRow;
  settings: StoredControls;
  exclusions: { pattern: string; addedAt: string }[];
  /** The --exclude patterns stored with the crawl's options. */
  storedExclude: string[];
  urls: Record<'queued' | 'fetching' | 'done' | 'failed' | 'skipped', number>;
  /** The latest requests, newest first. */
  requests: RequestRow[];
}
