import { checkControlRequest, SETTING_KEYS, type ControlRequest } from '../../pipeline/control-request.js';
import { CrawliteError } from '../../crawlite-error.js';

// What the live page may ask of the crawl, checked before anything is written, as `crawlite control`
// checks it (src/pipeline/control-request.ts); the crawl checks each request again when it applies it.

/** The longest pattern the live page sends: a regular expression a person types, not a document. */
export const MAX_PATTERN_CHARS = 1000;

/** A control the live page sent that is not one: 400, with the one line shown. */
export class BadControlError extends Error {}

/** The settings the page changes, by the key of `set`'s JSON argument (--min-free-disk is the command line's). */
const PAGE_SETTINGS = ['concurrency', 'per_host', 'delay_ms'] as const;

/** A pattern of fitting length; whether it compiles is checkControlRequest's to say. */
function givenPattern(pattern: unknown): string {
  if (typeof pattern !== 'string' || !pattern) throw new BadControlError('type a regular expression');
  if (pattern.length > MAX_PATTERN_CHARS) throw new BadControlError(`a pattern has at most ${MAX_PATTERN_CHARS} characters`);
  return pattern;
}

function givenSettings(value: unknown): ControlRequest & { command: 'set' } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadControlError('set takes an object of settings');
  const settings: Record<string, unknown> = {};
  for (const [name, given] of Object.entries(value)) {
    if (!(PAGE_SETTINGS as readonly string[]).includes(name))
      throw new BadControlError(`no setting ${name.slice(0, 40)}: concurrency, per_host or delay_ms`);
    settings[SETTING_KEYS[name as (typeof PAGE_SETTINGS)[number]]] = given;
  }
  return { command: 'set', settings } as ControlRequest & { command: 'set' };
}

/** The command line's names for what the page calls by its JSON keys, in a refusal. */
const FLAG_OF: Record<string, string> = { concurrency: 'concurrency', perHost: 'per_host', delayMs: 'delay_ms' };

/** The request a body asks for (`{"command": ..., "argument": ...}`), checked as the command line checks one. */
export function askedControl(body: unknown): ControlRequest {
  if (typeof body !== 'object' || body === null) throw new BadControlError('send a JSON object: {"command": ..., "argument": ...}');
  const { command, argument } = body as { command?: unknown; argument?: unknown };
  let request: ControlRequest;
  switch (command) {
    case 'pause':
    case 'resume':
      request = { command };
      break;
    case 'set':
      request = givenSettings(argument);
      break;
    case 'exclude':
    case 'include':
      request = { command, pattern: givenPattern(argument) };
      break;
    default:
      throw new BadControlError('command is one of pause, resume, set, exclude, include');
  }
  checkPage(request);
  return request;
}

/** checkControlRequest, its refusal as a BadControlError. */
function checkPage(request: ControlRequest): void {
  try {
    checkControlRequest(request, (key) => FLAG_OF[key] ?? key);
  } catch (error) {
    if (error instanceof CrawliteError || error instanceof TypeError) throw new BadControlError(error.message);
    throw error;
  }
}

/** A pattern the preview can run: of fitting length, and one the crawl would take. */
export function checkPattern(pattern: unknown): string {
  const given = givenPattern(pattern);
  checkPage({ command: 'exclude', pattern: given });
  return given;
}
