import type { ControlSettingsChange } from './ports.js';
import { compilePatterns } from './compile-patterns.js';
import { checkOptionValue, type NameOption } from './validate-crawl-options.js';

/** The commands control_request takes (its CHECK constraint). */
export const CONTROL_COMMANDS = ['pause', 'resume', 'stop', 'set', 'exclude', 'include'] as const;
export type ControlCommand = (typeof CONTROL_COMMANDS)[number];

/** A request to a running crawl, as another process asks it. */
export type ControlRequest =
  | { command: 'pause' | 'resume' | 'stop' }
  | { command: 'set'; settings: ControlSettingsChange }
  | { command: 'exclude' | 'include'; pattern: string };

/** The keys of `set`'s JSON argument, and the option each one is. */
export const SETTING_KEYS = { concurrency: 'concurrency', per_host: 'perHost', delay_ms: 'delayMs', min_free_disk: 'minFreeDisk' } as const;

/**
 * Checks a request as the crawl's options are checked (a regular expression that compiles, a setting within
 * its option's range); throws InvalidOptionError or InvalidPatternError, naming it with `name`.
 */
export function checkControlRequest(request: ControlRequest, name?: NameOption): void {
  if (request.command === 'set') {
    const given = Object.entries(request.settings).filter(([, value]) => value !== undefined);
    if (given.length === 0) throw new TypeError('set needs a setting to change');
    for (const [key, value] of given) checkOptionValue(key as keyof ControlSettingsChange, value, name);
  }
  if (request.command === 'exclude' || request.command === 'include') compilePatterns([request.pattern], request.command);
}

/** The row's argument column: JSON for `set` (control_request's keys), the pattern for exclude and include. */
export function requestArgument(request: ControlRequest): string | null {
  if (request.command === 'set') {
    const row = Object.fromEntries(
      Object.entries(SETTING_KEYS)
        .filter(([, key]) => request.settings[key] !== undefined)
        .map(([column, key]) => [column, request.settings[key]]),
    );
    return JSON.stringify(row);
  }
  return request.command === 'exclude' || request.command === 'include' ? request.pattern : null;
}

/** A row read back as a request; throws (with a sentence) when it is not one a crawl can apply. */
export function readRequest(command: string, argument: string | null): ControlRequest {
  switch (command) {
    case 'pause':
    case 'resume':
    case 'stop':
      return { command };
    case 'exclude':
    case 'include':
      if (!argument) throw new Error(`${command} needs a regular expression`);
      return { command, pattern: argument };
    case 'set': {
      const parsed: unknown = JSON.parse(argument ?? 'null');
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('set needs a JSON object');
      const settings: ControlSettingsChange = {};
      for (const [column, value] of Object.entries(parsed)) {
        const key = SETTING_KEYS[column as keyof typeof SETTING_KEYS];
        if (!key) throw new Error(`set knows no setting ${JSON.stringify(column)}`);
        settings[key] = value as number;
      }
      return { command, settings };
    }
    default:
      throw new Error(`no command ${JSON.stringify(command)}`);
  }
}
