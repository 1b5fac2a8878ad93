import { afterEach, describe, expect, it, vi } from 'vitest';
import { replayAddresses } from '../../src/serve/replay-addresses.js';
import { replayHostOrigin, siteReplayUrl } from '../support/replay-hosts.js';

// Where serve replays a capture: on loopback, each archived origin on a host of its own, read back
// through the archive's origins (read again on a miss, at most every few seconds, so a serve of an
// archive being crawled finds new origins and random labels cannot make it read them over and over);
// elsewhere, paths of the replay origin as before.

const BASE = 'http://127.0.0.1:5001';
const TS = '20260101000000';

afterEach(() => {
  vi.useRealTimers();
});

describe('replay addresses', () => {
  it('on loopback, a URL is replayed on its origin host at its own path, query and fragment; a body as captured stays a path', () => {
    const addresses = replayAddresses(BASE, true);
    expect(addresses.replayUrl('https://site.example/pkgs/x.html?q=1#/route', TS)).toBe(
      siteReplayUrl(BASE, 'https://site.example/pkgs/x.html?q=1#/route', TS),
    );
    expect(addresses.replayUrl('https://site.example/a', '2026')).toBe(siteReplayUrl(BASE, 'https://site.example/a', '20260000000000'));
    expect(addresses.replayUrl('https://site.example/a', TS, 'id_')).toBe(`${BASE}/${TS}id_/https://site.example/a`);
    expect(addresses.cspSources).toBe(`${BASE} http://*.crawlite.localhost:5001`);
    expect(addresses.isSiteOrigin(replayHostOrigin(BASE, 'https://other.example', TS))).toBe(true);
    expect(addresses.isSiteOrigin(replayHostOrigin('http://127.0.0.1:5002', 'https://other.example', TS))).toBe(false);
    expect(addresses.isSiteOrigin(BASE)).toBe(false);
  });

  it('elsewhere, every capture is a path of the replay origin and no host is a site', () => {
    const addresses = replayAddresses(BASE, false, () => ['https://site.example']);
    expect(addresses.replayUrl('https://site.example/pkgs/x.html?q=1', TS)).toBe(`${BASE}/${TS}/https://site.example/pkgs/x.html?q=1`);
    expect(addresses.cspSources).toBe(BASE);
    expect(addresses.site(new URL(replayHostOrigin(BASE, 'https://site.example', TS)).host)).toBeUndefined();
  });

  it("reads a host's origin back from the archive's origins, again on a miss only after a few seconds", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
    const archived = ['https://site.example'];
    let reads = 0;
    const addresses = replayAddresses(BASE, true, () => {
      reads++;
      return archived;
    });
    const host = (origin: string) => new URL(replayHostOrigin(BASE, origin, TS)).host;
    expect(addresses.site(host('https://site.example'))).toEqual({ timestamp: TS, origin: 'https://site.example' });
    expect(reads).toBe(1);
    // Known now: no read. A crawl adds an origin; a miss within the window reads nothing.
    expect(addresses.site(host('https://site.example'))?.origin).toBe('https://site.example');
    archived.push('https://new.example');
    for (let i = 0; i < 100; i++) expect(addresses.site(host(`https://random${i}.example`))?.origin).toBeUndefined();
    expect(addresses.site(host('https://new.example'))?.origin).toBeUndefined();
    expect(reads).toBe(1);
    vi.setSystemTime(new Date('2026-01-01T00:00:04Z'));
    expect(addresses.site(host('https://new.example'))?.origin).toBe('https://new.example');
    expect(reads).toBe(2);
    // Not a host of this shape or port: no site, no read.
    expect(addresses.site(`evil.example:5001`)).toBeUndefined();
    expect(addresses.site(host('https://site.example').replace(':5001', ':5002'))).toBeUndefined();
    expect(reads).toBe(2);
  });

  it('remembers the origins of the URLs it addressed, so a live link of a replayed page is named on its "not archived" page', () => {
    const addresses = replayAddresses(BASE, true, () => []);
    const url = addresses.replayUrl('http://live.example/elsewhere.html', TS);
    expect(addresses.site(new URL(url).host)).toEqual({ timestamp: TS, origin: 'http://live.example' });
  });
});
