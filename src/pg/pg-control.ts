import type pg from 'pg';
import { checkControlRequest, readRequest, requestArgument, type ControlRequest } from '../pipeline/control-request.js';
import type { AppliedControl, ControlPort, ControlSettingsChange, ControlSource } from '../pipeline/ports.js';
import { liveExclusionReason } from '../pipeline/scope.js';
import { CrawliteError } from '../crawlite-error.js';
import { describeTarget } from './pg-errors.js';
import { pooledTransaction } from './pooled-transaction.js';

/** Held while a request is applied, so requests apply one at a time, in order, whichever worker applies them. */
const CONTROL_LOCK = 0x6374_726c;
/** URLs looked at per query when the shared queue is pruned or an exclusion's URLs are queued again. */
const SCAN_BATCH = 5_000;
/** Requests applied in one poll at most. */
const BATCH = 100;

const NAMES = { concurrency: 'concurrency', perHost: 'per_host', delayMs: 'delay_ms', minFreeDisk: 'min_free_disk' } as const;
const storedReason = (pattern: string) => ({ code: 'excluded', message: `matches --exclude ${new RegExp(pattern).source}` });
const urls = (n: number, what = '') => `${n} ${what}URL${n === 1 ? '' : 's'}`;

/** The controls every worker follows, as the frontier holds them. */
export interface SharedControls {
  pausedBy?: ControlSource;
  settings: ControlSettingsChange;
  /** Live exclusions and the crawl's --exclude patterns. */
  exclusions: string[];
  /** The latest stop applied: a worker stops for one applied after it started. */
  lastStop: number;
}

/** The frontier has no control tables: no worker of this version has run on it yet. */
export class FrontierControlUnavailableError extends CrawliteError {
  constructor(connection: string | undefined) {
    super(
      'CONTROL_UNAVAILABLE',
      `${describeTarget(connection)} was made by an older crawlite: start a worker of this version on it, then control it`,
    );
  }
}

/** Whether the frontier has the tables requests go to. */
export async function checkControlTables(pool: pg.Pool, connection: string | undefined): Promise<void> {
  const { rows } = await pool.query<{ found: string | null }>("SELECT to_regclass('control_request') AS found");
  if (!rows[0]?.found) throw new FrontierControlUnavailableError(connection);
}

/** Appends a request to steer the workers (checked first by the caller); its id. */
export async function requestControl(pool: pg.Pool, request: ControlRequest, by: ControlSource): Promise<number> {
  const { rows } = await pool.query<{ id: string }>(
    'INSERT INTO control_request (requested_by, command, argument) VALUES ($1, $2, $3) RETURNING id',
    [by, request.command, requestArgument(request)],
  );
  return Number(rows[0]!.id);
}

/** How request `id` was applied, once it was. */
export async function controlAnswer(pool: pg.Pool, id: number): Promise<string | undefined> {
  const { rows } = await pool.query<{ outcome: string | null; applied: boolean }>(
    'SELECT outcome, applied_at IS NOT NULL AS applied FROM control_request WHERE id = $1',
    [id],
  );
  return rows[0]?.applied ? (rows[0].outcome ?? '') : undefined;
}

/** Workers running: seen in the last `seconds` (their heartbeat), and not ended. */
export async function workersSeen(pool: pg.Pool, seconds = 30): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM worker WHERE last_seen > now() - make_interval(secs => $1) AND ended_at IS NULL',
    [seconds],
  );
  return Number(rows[0]!.n);
}

/**
 * A worker's side of the frontier's controls: each poll, requests waiting are applied (by whichever worker
 * polls first, one at a time under a lock, each in a transaction with what it changes: a setting, an
 * exclusion and the shared queue it prunes); then the controls as they stand are read and what changed
 * since the last poll is returned for this worker to follow.
 */
export class PgControl implements ControlPort {
  private constructor(
    private readonly pool: pg.Pool,
    private seen: SharedControls,
  ) {}

  /** Applies what waits and reads the controls a worker starts with: stops applied before it are not its own. */
  static async start(pool: pg.Pool): Promise<{ control: PgControl; initial: SharedControls }> {
    await applyRequests(pool);
    const initial = await readShared(pool);
    return { control: new PgControl(pool, initial), initial };
  }

  async waiting(): Promise<{ upTo: number; exclusions: string[] }> {
    const { rows } = await this.pool.query<{ id: string; command: string; argument: string | null }>(
      'SELECT id, command, argument FROM control_request WHERE applied_at IS NULL ORDER BY id',
    );
    return {
      upTo: Number(rows.at(-1)?.id ?? 0),
      exclusions: rows.filter((row) => row.command === 'exclude' && row.argument !== null).map((row) => row.argument!),
    };
  }

  async applyWaiting(upTo?: number): Promise<AppliedControl[]> {
    await applyRequests(this.pool, upTo);
    const now = await readShared(this.pool);
    const changes = changed(this.seen, now);
    this.seen = now;
    return changes;
  }

  /** A worker is seen through its heartbeat (frontier status): it keeps no live row of its own. */
  async writeLive(): Promise<void> {}
}

/**
 * What changed since the last poll, in the order a worker must follow it: a pause first, so nothing more
 * starts; exclusions and settings next; a resume last, so that nothing an exclusion of the same poll
 * matches starts on it.
 */
function changed(before: SharedControls, now: SharedControls): AppliedControl[] {
  const changes: AppliedControl[] = [];
  if (now.pausedBy && before.pausedBy !== now.pausedBy) changes.push({ command: 'pause', by: now.pausedBy });
  const settings = Object.fromEntries(
    Object.entries(now.settings).filter(([key, value]) => before.settings[key as keyof ControlSettingsChange] !== value),
  );
  if (Object.keys(settings).length > 0) changes.push({ command: 'set', settings });
  for (const pattern of now.exclusions) if (!before.exclusions.includes(pattern)) changes.push({ command: 'exclude', pattern });
  for (const pattern of before.exclusions)
    if (!now.exclusions.includes(pattern)) changes.push({ command: 'include', pattern, requeued: [] });
  if (!now.pausedBy && before.pausedBy) changes.push({ command: 'resume' });
  if (now.lastStop > before.lastStop) changes.push({ command: 'stop' });
  return changes;
}

async function readShared(pool: pg.Pool): Promise<SharedControls> {
  // One after another: at once they would ask the pool for four connections, which a full server refuses.
  const settings = await pool.query<{ name: string; value: string }>('SELECT name, value FROM control_setting');
  const live = await pool.query<{ pattern: string }>('SELECT pattern FROM live_exclusion ORDER BY added_at, pattern');
  const crawl = await pool.query<{ exclude: string[] | null }>("SELECT options->'exclude' AS exclude FROM crawl WHERE id = 1");
  const stop = await pool.query<{ id: string }>(
    "SELECT coalesce(max(id), 0) AS id FROM control_request WHERE command = 'stop' AND applied_at IS NOT NULL",
  );
  const rows = new Map(settings.rows.map((row) => [row.name, row.value]));
  const shared: SharedControls = {
    settings: {},
    exclusions: [...live.rows.map((row) => row.pattern), ...(crawl.rows[0]?.exclude ?? [])],
    lastStop: Number(stop.rows[0]!.id),
  };
  for (const [key, name] of Object.entries(NAMES) as [keyof ControlSettingsChange, string][]) {
    const value = rows.get(name);
    if (value !== undefined && /^\d+$/.test(value)) shared.settings[key] = Number(value);
  }
  if (rows.get('paused') === '1') shared.pausedBy = rows.get('paused_reason') === 'serve' ? 'serve' : 'control';
  return shared;
}

interface WaitingRow {
  id: string;
  requested_by: string;
  command: string;
  argument: string | null;
}

async function applyRequests(pool: pg.Pool, upTo = Number.MAX_SAFE_INTEGER): Promise<void> {
  for (let i = 0; i < BATCH; i += 1) {
    const applied = await pooledTransaction(pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [CONTROL_LOCK]);
      const { rows } = await client.query<WaitingRow>(
        'SELECT id, requested_by, command, argument FROM control_request WHERE applied_at IS NULL AND id <= $1 ORDER BY id LIMIT 1',
        [upTo],
      );
      const row = rows[0];
      if (!row) return false;
      // A request the crawl cannot take (a row written by hand) is answered with why; the frontier's own errors end the poll.
      let request: ControlRequest;
      try {
        request = readRequest(row.command, row.argument);
        checkControlRequest(request);
      } catch (error) {
        await client.query('UPDATE control_request SET applied_at = now(), outcome = $2 WHERE id = $1', [
          row.id,
          `refused: ${(error as Error).message}`,
        ]);
        return true;
      }
      const outcome = await apply(client, request, row.requested_by === 'serve' ? 'serve' : 'control');
      await client.query('UPDATE control_request SET applied_at = now(), outcome = $2 WHERE id = $1', [row.id, outcome]);
      return true;
    });
    if (!applied) return;
  }
}

async function setting(client: pg.ClientBase, name: string, value: string): Promise<void> {
  await client.query(
    'INSERT INTO control_setting (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value, set_at = now()',
    [name, value],
  );
}

async function apply(client: pg.ClientBase, request: ControlRequest, by: ControlSource): Promise<string> {
  switch (request.command) {
    case 'pause':
      await setting(client, 'paused', '1');
      await setting(client, 'paused_reason', by);
      return 'paused: every worker pauses within a few seconds';
    case 'resume':
      await setting(client, 'paused', '0');
      return 'running: every worker goes on within a few seconds';
    case 'stop':
      return 'stopping: every worker finishes its requests in flight and ends (run the workers again to go on)';
    case 'set': {
      const words: string[] = [];
      for (const [key, value] of Object.entries(request.settings) as [keyof ControlSettingsChange, number][]) {
        await setting(client, NAMES[key], String(value));
        words.push(`${NAMES[key].replace('_', '-')} ${value}`);
      }
      return `set ${words.join(', ')} for every worker`;
    }
    case 'exclude': {
      await client.query('INSERT INTO live_exclusion (pattern) VALUES ($1) ON CONFLICT (pattern) DO NOTHING', [request.pattern]);
      const skipped = await pruneQueue(client, request.pattern, liveExclusionReason(request.pattern));
      return `excluded: ${urls(skipped, 'queued ')} skipped`;
    }
    case 'include':
      return include(client, request.pattern);
  }
}

/** Skips the shared queue's URLs matching `pattern`, in steps of the primary key; how many. */
async function pruneQueue(client: pg.ClientBase, pattern: string, reason: { code: string; message: string }): Promise<number> {
  const regexp = new RegExp(pattern);
  let skipped = 0;
  for (let after = 0; ;) {
    const { rows } = await client.query<{ id: string; href: string }>(
      `SELECT id, coalesce(fetch_url, url) AS href FROM url WHERE id > $1 AND state = 'queued' AND kind <> 'robots' ORDER BY id LIMIT $2`,
      [after, SCAN_BATCH],
    );
    if (rows.length === 0) return skipped;
    after = Number(rows.at(-1)!.id);
    const ids = rows.filter((row) => regexp.test(row.href)).map((row) => row.id);
    if (ids.length === 0) continue;
    const updated = await client.query(
      "UPDATE url SET state = 'skipped', error_code = $2, error = $3 WHERE id = ANY($1::bigint[]) AND state = 'queued'",
      [ids, reason.code, reason.message],
    );
    skipped += updated.rowCount ?? 0;
  }
}

/** Takes an exclusion away (live, or an --exclude of the crawl) and queues again what it skipped, unless another still matches. */
async function include(client: pg.ClientBase, pattern: string): Promise<string> {
  const { rows: crawlRows } = await client.query<{ exclude: string[] | null; include: string[] | null }>(
    "SELECT options->'exclude' AS exclude, options->'include' AS include FROM crawl WHERE id = 1",
  );
  const exclude = crawlRows[0]?.exclude ?? [];
  let reason: { code: string; message: string };
  let stored = false;
  if (((await client.query('DELETE FROM live_exclusion WHERE pattern = $1', [pattern])).rowCount ?? 0) > 0) {
    reason = liveExclusionReason(pattern);
  } else if (exclude.includes(pattern)) {
    stored = true;
    reason = storedReason(pattern);
    await client.query("UPDATE crawl SET options = jsonb_set(options, '{exclude}', $1::jsonb) WHERE id = 1", [
      JSON.stringify(exclude.filter((other) => other !== pattern)),
    ]);
  } else {
    return `no exclusion ${pattern}: nothing changed`;
  }
  const live = await client.query<{ pattern: string }>('SELECT pattern FROM live_exclusion');
  const others = [...live.rows.map((row) => row.pattern), ...exclude.filter((other) => other !== pattern)].map(
    (other) => new RegExp(other),
  );
  const includes = (crawlRows[0]?.include ?? []).map((other) => new RegExp(other));
  let requeued = 0;
  for (let after = 0; ;) {
    const { rows } = await client.query<{ id: string; href: string; kind: string }>(
      `SELECT id, coalesce(fetch_url, url) AS href, kind FROM url
       WHERE id > $1 AND state = 'skipped' AND error_code = $2 AND error = $3 ORDER BY id LIMIT $4`,
      [after, reason.code, reason.message, SCAN_BATCH],
    );
    if (rows.length === 0) break;
    after = Number(rows.at(-1)!.id);
    const ids = rows
      .filter((row) => !others.some((other) => other.test(row.href)))
      .filter((row) => includes.length === 0 || row.kind === 'requisite' || includes.some((one) => one.test(row.href)))
      .map((row) => row.id);
    if (ids.length === 0) continue;
    const updated = await client.query(
      "UPDATE url SET state = 'queued', error_code = NULL, error = NULL WHERE id = ANY($1::bigint[]) AND state = 'skipped'",
      [ids],
    );
    requeued += updated.rowCount ?? 0;
  }
  return `included: ${urls(requeued)} queued again${stored ? ' (an --exclude of the crawl)' : ''}`;
}
