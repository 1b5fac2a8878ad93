import type { ArchiveFacts, ArchiveReader } from '../../storage/reader/index.js';
import type { SearchArchive } from '../search-mount.js';
import type { UiDiff } from '../diff-mount.js';
import type { UiSql } from '../sql-mount.js';
import type { UiLive } from '../live-mount.js';
import { replayAddresses, type ReplayAddresses } from '../replay-addresses.js';

/** What every UI page reads from: the archive (its pages through its reader, the rest through its facts) and where replay lives. */
export interface UiContext {
  archive: ArchiveReader;
  facts: ArchiveFacts;
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  replayOrigin: string;
  /** Where captures are replayed; without it, paths of replayOrigin. */
  replayAddresses?: ReplayAddresses;
  /**
   * Where the replay page is served, when not on any name of the UI (`http://crawlite.localhost:PORT`,
   * the replay hosts' own domain, so the replayed page in its frame is no third party): the UI redirects there.
   */
  replayPageOrigin?: string;
  search: SearchArchive | undefined;
  /** Runs the SQL page's statements; the page answers 501 without it. */
  sql?: UiSql;
  /** Runs the changes page's text diffs; the diff answers 501 without it. */
  diff?: UiDiff;
  /** The live page's snapshots and controls; the page answers 501 without it. */
  live?: UiLive;
}

/** Where the UI's frames and links find replay. */
export function addressesOf(context: UiContext): ReplayAddresses {
  return context.replayAddresses ?? replayAddresses(context.replayOrigin, false);
}

/** A request the UI refuses: its status and the one line shown. */
export class UiHttpError extends Error {
  constructor(
    readonly status: 400 | 404 | 501,
    message: string,
  ) {
    super(message);
  }
}

export interface UiPage {
  status?: number;
  title: string;
  body: import('./html.js').Html;
  /** Extra scripts to load (served from /assets). */
  scripts?: string[];
  styles?: string[];
  /** The page alone, without the navigation bar: the replay frame page, which fills the window. */
  bare?: boolean;
}
