import { CRAWL_OPTION_DEFINITIONS } from '../../pipeline/option-definitions.js';
import type { ControlCommand } from '../../storage/control/index.js';

// What the live page may ask of the crawl, checked before anything is written: the crawl checks each
// request again when it applies it, and says in its outcome why it refused one.

/** The longest pattern the live page sends: a regular expression a person types, not a document. */
export const MAX_PATTERN_CHARS = 1000;

export interface AskedControl {
  command: ControlCommand;
  argument: string | null;
}

/** A control the live page sent that is not one: 400, with the one line shown. */
export class BadControlError extends Error {}

/** The settings the live page changes: the JSON key the crawl reads, and the option whose range it keeps. */
const SETTINGS = {
  concurrency: CRAWL_OPTION_DEFINITIONS.concurrency,
  per_host: CRAWL_OPTION_DEFINITIONS.perHost,
  delay_ms: CRAWL_OPTION_DEFINITIONS.delayMs,
} as const;

/** A regular expression as the crawl compiles --exclude, or the reason it is none. */
export function checkPattern(pattern: unknown): string {
  if (typeof pattern !== 'string' || !pattern) throw new BadControlError('type a regular expression');
  if (pattern.length > MAX_PATTERN_CHARS) throw new BadControlError(`a pattern has at most ${MAX_PATTERN_CHARS} characters`);
  try {
    new RegExp(pattern);
  } catch (error) {
    throw new BadControlError(`not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`);
  }
  return pattern;
}

function checkSettings(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadControlError('set takes an object of settings');
  const settings: Record<string, number> = {};
  for (const [name, given] of Object.entries(value)) {
    const definition = Object.hasOwn(SETTINGS, name) ? SETTINGS[name as keyof typeof SETTINGS] : undefined;
    if (!definition) throw new BadControlError(`no setting ${name.slice(0, 40)}: concurrency, per_host or delay_ms`);
    if (typeof given !== 'number' || !Number.isInteger(given) || given < definition.min || given > definition.max)
      throw new BadControlError(`--${definition.flag} takes a whole number from ${definition.min} to ${definition.max}`);
    settings[name] = given;
  }
  if (Object.keys(settings).length === 0) throw new BadControlError('set at least one of concurrency, per_host, delay_ms');
  return JSON.stringify(settings);
}

/** The control a request body asks for (`{"command": ..., "argument": ...}`), checked. */
export function askedControl(body: unknown): AskedControl {
  if (typeof body !== 'object' || body === null) throw new BadControlError('send a JSON object: {"command": ..., "argument": ...}');
  const { command, argument } = body as { command?: unknown; argument?: unknown };
  switch (command) {
    case 'pause':
    case 'resume':
      return { command, argument: null };
    case 'set':
      return { command, argument: checkSettings(argument) };
    case 'exclude':
    case 'include':
      return { command, argument: checkPattern(argument) };
    default:
      throw new BadControlError('command is one of pause, resume, set, exclude, include');
  }
}
