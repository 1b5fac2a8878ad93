import type { Database, Statement } from 'better-sqlite3';
import type { ControlSettingsChange, ControlSource } from '../../pipeline/ports.js';
import type { StoredControls } from './control-status.js';

/** control_setting's names for the settings, beside `paused` and `paused_reason`. */
const NAMES = { concurrency: 'concurrency', perHost: 'per_host', delayMs: 'delay_ms', minFreeDisk: 'min_free_disk' } as const;

/** The settings a running crawl was given from outside, kept across runs in control_setting. */
export class ControlSettings {
  private readonly all: Statement<[], { name: string; value: string }>;
  private readonly upsert: Statement<[string, string, string]>;
  private readonly remove: Statement<[string]>;

  constructor(db: Database) {
    this.all = db.prepare('SELECT name, value FROM control_setting');
    this.upsert = db.prepare(
      'INSERT INTO control_setting (name, value, set_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value, set_at = excluded.set_at',
    );
    this.remove = db.prepare('DELETE FROM control_setting WHERE name = ?');
  }

  read(): StoredControls {
    const rows = new Map(this.all.all().map((row) => [row.name, row.value]));
    const stored: StoredControls = {};
    for (const [key, name] of Object.entries(NAMES) as [keyof ControlSettingsChange, string][]) {
      const value = rows.get(name);
      if (value !== undefined && /^\d+$/.test(value)) stored[key] = Number(value);
    }
    if (rows.get('paused') === '1') stored.pausedBy = rows.get('paused_reason') === 'serve' ? 'serve' : 'control';
    return stored;
  }

  set(change: ControlSettingsChange, now: Date): void {
    for (const [key, value] of Object.entries(change) as [keyof ControlSettingsChange, number | undefined][]) {
      if (value !== undefined) this.upsert.run(NAMES[key], String(value), now.toISOString());
    }
  }

  /** Settings given on a run's command line win over stored ones: their rows go, the run's options hold them. */
  forget(keys: readonly (keyof ControlSettingsChange)[]): void {
    for (const key of keys) this.remove.run(NAMES[key]);
  }

  paused(by: ControlSource | undefined, now: Date): void {
    const at = now.toISOString();
    this.upsert.run('paused', by ? '1' : '0', at);
    if (by) this.upsert.run('paused_reason', by, at);
    else this.remove.run('paused_reason');
  }
}
