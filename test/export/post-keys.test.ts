import { readFileSync } from 'node:fs';
import { postToGetUrl } from 'warcio';
import { describe, expect, it } from 'vitest';
import { requestQuery } from '../../src/export/request-query.js';
import { surt } from '../../src/url/index.js';

// The CDXJ key of the answer to a POST or PUT is the one pywb computes for it, at indexing and again
// for the request a replayed page sends: each row of the fixture was computed by pywb's own
// MethodQueryCanonicalizer and Python's surt (and by cdxj-indexer, which differs for JSON's true, false,
// null and whole floats, where it prints Python's True, None, 2.0). The line's requestBody is what
// warcio.js reads the body as, which ReplayWeb.page matches a replayed request against.

interface Row {
  name: string;
  method: string;
  url: string;
  contentType: string | null;
  body: string;
  pywb: { query: string; key: string };
  cdxjIndexer: { query: string; key: string } | null;
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/post-keys.json', import.meta.url), 'utf8')) as {
  computedBy: string;
  rows: Row[];
};

const keyOf = (row: Row) => surt(requestQuery(row.url, row.method, Buffer.from(row.body, 'base64'), row.contentType ?? undefined).keyUrl);

describe('POST keys', () => {
  it('the fixture says what computed it', () => {
    expect(fixture.computedBy).toMatch(/^pywb \w+ MethodQueryCanonicalizer/);
  });

  it.each(fixture.rows.map((row) => [row.name, row] as const))("%s: pywb's key", (_name, row) => {
    expect(keyOf(row)).toBe(row.pywb.key);
  });

  it("agrees with cdxj-indexer's keys but where JSON holds true, false, null or a whole float", () => {
    const differ = fixture.rows.filter((row) => row.cdxjIndexer && row.cdxjIndexer.key !== keyOf(row)).map((row) => row.name);
    expect(differ).toEqual(['json nested', 'json small and big numbers']);
  });

  it("gives JSON's members as name=value, nested and repeated names as pywb does", () => {
    const row = (name: string) => fixture.rows.find((each) => each.name === name)!;
    expect(keyOf(row('json id'))).toBe('com,example)/api?__wb_method=post&id=2');
    expect(keyOf(row('json top-level array'))).toBe('com,example)/api?__wb_method=post&id=1&id.2_=2&id.3_=3');
    // Members in document order, as Python reads them (JSON.parse would put the integer-like name first).
    expect(keyOf(row('json key order'))).toBe('com,example)/api?1=y&1.2_=x&__wb_method=post');
  });

  it.each(fixture.rows.filter((row) => Buffer.from(row.body, 'base64').byteLength > 0).map((row) => [row.name, row] as const))(
    "%s: the requestBody warcio.js's indexer writes",
    (_name, row) => {
      const body = Buffer.from(row.body, 'base64');
      const request = {
        url: row.url,
        method: row.method,
        headers: new Headers(row.contentType ? { 'content-type': row.contentType } : {}),
        postData: new Uint8Array(body),
        requestBody: undefined as unknown,
      };
      let theirs: unknown;
      try {
        theirs = postToGetUrl(request, 4096) ? request.requestBody : undefined;
      } catch {
        theirs = undefined;
      }
      expect(requestQuery(row.url, row.method, body, row.contentType ?? undefined).requestBody).toBe(theirs);
    },
  );
});
