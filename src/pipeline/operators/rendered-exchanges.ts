import { map, type OperatorFunction } from 'rxjs';
import type { CrawlItem } from '../crawl-item.js';
import { discover } from '../discover.js';
import { charsetOf } from '../../html/index.js';
import type { DiscoveredUrl, PageExchange } from '../ports.js';
import type { BrowserExchange } from '../renderer.js';
import { normalizeUrl } from '../../url/index.js';

const isGet = (method: string) => method === 'GET' || method === 'HEAD';

/** An exchange of the page as the archive keeps it. */
function asPageExchange(exchange: BrowserExchange, key: string, origin: string): PageExchange {
  const { response } = exchange;
  const contentType = response.headers['content-type'] ?? null;
  const captured: PageExchange = {
    url: exchange.url,
    key,
    origin,
    response: {
      status: response.status,
      headers: response.headers,
      contentType,
      charset: charsetOf(contentType),
      location: response.location ?? null,
      body: response.body,
      fetchedAt: response.fetchedAt,
      elapsedMs: response.elapsedMs,
      ...(response.wire ? { wire: response.wire } : {}),
    },
  };
  if (exchange.requestBody) captured.requestBody = exchange.requestBody;
  return captured;
}

/**
 * What a rendered page fetched, made ready for the archive: each exchange keyed as the crawl keys
 * URLs, the URLs the page loaded added to what it links to (as requisites, so the link graph and
 * replay know them; the sink stores their captures first, so none is fetched again), the URLs
 * it was refused added as requisites too, skipped with the reason, and where its script tried to
 * navigate added as links.
 */
export function renderedExchanges(): OperatorFunction<CrawlItem, CrawlItem> {
  return map((item) => {
    const rendered = item.rendered;
    if (!rendered) return item;
    const known = new Set(item.discovered.map((found) => found.key));
    const found: DiscoveredUrl[] = [];
    const exchanges: PageExchange[] = [];
    const depth = item.claim.depth + 1;
    for (const exchange of rendered.exchanges) {
      const normalized = normalizeUrl(exchange.url);
      if (!('key' in normalized)) continue;
      exchanges.push(asPageExchange(exchange, normalized.key, normalized.origin));
      if (isGet(exchange.method) && !known.has(normalized.key)) {
        known.add(normalized.key);
        found.push(discover(normalized, 'requisite', 'requisite', depth));
      }
    }
    for (const { url, reason } of rendered.blocked) {
      const normalized = normalizeUrl(url);
      if (!('key' in normalized) || known.has(normalized.key)) continue;
      known.add(normalized.key);
      const blocked = discover(normalized, 'requisite', 'requisite', depth);
      // A refusal scope would not make (a local address, a write) keeps its own reason, or the URL would be queued.
      found.push(reason ? { ...blocked, skip: reason } : blocked);
    }
    for (const url of rendered.navigations ?? []) {
      const normalized = normalizeUrl(url);
      if (!('key' in normalized) || known.has(normalized.key)) continue;
      known.add(normalized.key);
      found.push(discover(normalized, 'link', 'page', depth));
    }
    return { ...item, discovered: found.length ? [...item.discovered, ...found] : item.discovered, exchanges };
  });
}
