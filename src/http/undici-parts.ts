/**
 * The parts of undici the HTTP client uses, loaded from undici's own files
 * rather than its index: the index loads fetch, WebSocket, EventSource,
 * cookies, mocks and caches too, twice the code in the bundle, and every crawl
 * paid for compiling it before its first request (about 55 ms on a 2-core
 * machine, docs/performance.md).
 */
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import api from 'undici/lib/api/index.js';
import errors from 'undici/lib/core/errors.js';
import util from 'undici/lib/core/util.js';

// As undici's index does: a proxy's CONNECT goes through the dispatcher's `connect`, one of these methods.
Object.assign(Dispatcher.prototype, api);

export { Agent, ProxyAgent, errors };

/** Headers as undici parses them from a raw header list (lower-cased names, repeats in arrays). */
export const parseHeaders = (rawHeaders: Buffer[]): Record<string, string | string[]> => util.parseHeaders(rawHeaders);
