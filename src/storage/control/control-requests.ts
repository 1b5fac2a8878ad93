import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { AppliedControl, ControlSettingsChange, ControlSource } from '../../pipeline/ports.js';
import { checkControlRequest, readRequest, type ControlRequest } from '../../pipeline/control-request.js';
import { ControlSettings } from './control-settings.js';
import { LiveExclusions } from './live-exclusions.js';

/** Requests applied in one go at most; the rest wait for the next poll. */
const BATCH = 100;

interface WaitingRow {
  id: number;
  requested_by: string;
  command: string;
  argument: string | null;
}

const SETTING_WORDS: Record<keyof ControlSettingsChange, string> = {
  concurrency: 'concurrency',
  perHost: 'per-host',
  delayMs: 'delay',
  minFreeDisk: 'min-free-disk',
};

const urls = (n: number, what = '') => `${n} ${what}URL${n === 1 ? '' : 's'}`;

/**
 * The crawl's side of control_request: each waiting request, in id order, is applied to the archive in a
 * transaction of its own (a setting stored, an exclusion added and the queue pruned) together with its
 * applied_at and outcome. A request the crawl cannot apply (a bad pattern written by hand) is answered
 * with why it was refused. What each asks of the running crawl is returned, for it to follow.
 */
export class ControlRequests {
  private readonly waitingBatch: Statement<[number, number], WaitingRow>;
  private readonly answer: Statement<[string, string, number]>;
  private readonly waitingRows: Statement<[], { id: number; command: string; argument: string | null }>;
  private readonly settings: ControlSettings;
  readonly exclusions: LiveExclusions;
  private readonly applyOne: Transaction<(row: WaitingRow, now: Date) => AppliedControl | undefined>;

  constructor(db: Database) {
    this.waitingBatch = db.prepare(
      'SELECT id, requested_by, command, argument FROM control_request WHERE applied_at IS NULL AND id <= ? ORDER BY id LIMIT ?',
    );
    this.waitingRows = db.prepare('SELECT id, command, argument FROM control_request WHERE applied_at IS NULL ORDER BY id');
    this.answer = db.prepare('UPDATE control_request SET applied_at = ?, outcome = ? WHERE id = ? AND applied_at IS NULL');
    this.settings = new ControlSettings(db);
    this.exclusions = new LiveExclusions(db);
    this.applyOne = db.transaction((row: WaitingRow, now: Date) => {
      let request: ControlRequest;
      try {
        request = readRequest(row.command, row.argument);
        checkControlRequest(request);
      } catch (error) {
        this.answer.run(now.toISOString(), `refused: ${(error as Error).message}`, row.id);
        return undefined;
      }
      const by: ControlSource = row.requested_by === 'serve' ? 'serve' : 'control';
      const { outcome, applied } = this.apply(request, by, now);
      this.answer.run(now.toISOString(), outcome, row.id);
      return applied;
    });
  }

  private apply(request: ControlRequest, by: ControlSource, now: Date): { outcome: string; applied: AppliedControl } {
    switch (request.command) {
      case 'pause':
        this.settings.paused(by, now);
        return { outcome: 'paused', applied: { command: 'pause', by } };
      case 'resume':
        this.settings.paused(undefined, now);
        return { outcome: 'running', applied: { command: 'resume' } };
      case 'stop':
        return { outcome: 'stopping: requests in flight finish, then the crawl ends (resume goes on)', applied: { command: 'stop' } };
      case 'set': {
        this.settings.set(request.settings, now);
        const words = (Object.entries(request.settings) as [keyof ControlSettingsChange, number][]).map(
          ([key, value]) => `${SETTING_WORDS[key]} ${value}`,
        );
        return { outcome: `set ${words.join(', ')}`, applied: { command: 'set', settings: request.settings } };
      }
      case 'exclude': {
        const skipped = this.exclusions.add(request.pattern, now);
        return { outcome: `excluded: ${urls(skipped, 'queued ')} skipped`, applied: { command: 'exclude', pattern: request.pattern } };
      }
      case 'include': {
        const included = this.exclusions.remove(request.pattern);
        const outcome =
          included.was === undefined
            ? `no exclusion ${request.pattern}: nothing changed`
            : `included: ${urls(included.requeued)} queued again${included.was === 'stored' ? ' (an --exclude of the crawl)' : ''}`;
        return { outcome, applied: { command: 'include', pattern: request.pattern, requeued: included.origins } };
      }
    }
  }

  /** The last waiting request's id, and the patterns of the exclude requests among those waiting. */
  waiting(): { upTo: number; exclusions: string[] } {
    const rows = this.waitingRows.all();
    return {
      upTo: rows.at(-1)?.id ?? 0,
      exclusions: rows.filter((row) => row.command === 'exclude' && row.argument !== null).map((row) => row.argument!),
    };
  }

  /** Applies what waits, in order; returns what the crawl must follow. */
  applyWaiting(upTo = Number.MAX_SAFE_INTEGER, now = new Date()): AppliedControl[] {
    const applied: AppliedControl[] = [];
    for (const row of this.waitingBatch.all(upTo, BATCH)) {
      const one = this.applyOne.immediate(row, now);
      if (one) applied.push(one);
    }
    return applied;
  }
}
