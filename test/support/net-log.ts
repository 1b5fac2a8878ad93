import { readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { CHROMIUM } from './browser.js';

/** A Chromium that writes its NetLog (every socket, resolution and request of the whole browser) to `log`: pass it as --chromium. */
export function chromiumWithNetLog(wrapper: string, log: string): string {
  writeFileSync(wrapper, `#!/bin/sh\nexec ${CHROMIUM} --log-net-log=${log} --net-log-capture-mode=Default "$@"\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}

export interface NetLogSummary {
  /** `address:port` of every TCP connection the browser opened. */
  connectedTo: string[];
  /** Host names the browser's resolver was asked for. */
  resolved: string[];
  /** URLs of the requests the browser started, its own included. */
  requested: string[];
}

/** Reads a NetLog; one cut short by a browser that did not close cleanly is read as far as it goes. */
export function readNetLog(path: string): NetLogSummary {
  const text = readFileSync(path, 'utf8');
  let log: { constants: { logEventTypes: Record<string, number> }; events: { type: number; params?: Record<string, unknown> }[] };
  try {
    log = JSON.parse(text);
  } catch {
    log = JSON.parse(`${text.trimEnd().replace(/,$/, '')}]}`);
  }
  const names = new Map(Object.entries(log.constants.logEventTypes).map(([name, id]) => [id, name]));
  const summary: NetLogSummary = { connectedTo: [], resolved: [], requested: [] };
  for (const event of log.events) {
    const name = names.get(event.type) ?? '';
    const params = event.params ?? {};
    if (name === 'TCP_CONNECT' && typeof params.remote_address === 'string') summary.connectedTo.push(params.remote_address);
    if (name.startsWith('HOST_RESOLVER') && typeof params.host === 'string') summary.resolved.push(params.host);
    if (name === 'URL_REQUEST_START_JOB' && typeof params.url === 'string') summary.requested.push(params.url);
  }
  return summary;
}
