import { replayFacts } from '../replay/replay-facts.js';
import type { UiContext } from './ui-context.js';

const TIMESTAMP = /^\d{1,14}$/;

/**
 * `/api/capture?url=&ts=`: the facts of the capture a replay of `url` near `ts` shows (ReplayFacts, the
 * same the replay bar is drawn from), as JSON; 404 when the archive has none, 400 for a bad request.
 * What the replay bar's script asks when the frame says it shows another page: it answers only with
 * what the archive holds, so a page that lies to the bar can make it show another real capture at most.
 */
export function captureFactsApi(context: UiContext, params: URLSearchParams): { status: number; json: unknown } {
  const url = params.get('url') ?? '';
  const ts = params.get('ts') ?? '';
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return { status: 400, json: { error: 'url must be an http or https URL' } };
  if (!TIMESTAMP.test(ts)) return { status: 400, json: { error: "ts must be a capture's timestamp (YYYYMMDDhhmmss)" } };
  const facts = replayFacts(context.archive, url, ts);
  return facts ? { status: 200, json: facts } : { status: 404, json: { error: 'not archived' } };
}
