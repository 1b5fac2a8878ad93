import { lastValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { CrawlItem } from '../../src/pipeline/crawl-item.js';
import { inScope } from '../../src/pipeline/operators/in-scope.js';
import { withinLimits } from '../../src/pipeline/operators/within-limits.js';
import type { DiscoveredUrl } from '../../src/pipeline/ports.js';
import { discovered, fetchedPage } from '../support/crawl-items.js';

const found = discovered;
const item = (links: DiscoveredUrl[]): CrawlItem => fetchedPage('http://site/', links);

const codes = (out: CrawlItem) => out.discovered.map((d) => d.skip?.code ?? 'queued');

describe('inScope', () => {
  const rules = { roots: [new URL('http://site/')], lenient: false, exclude: [/\/private\//], include: [/\/docs\//] };

  it('marks other sites, excluded and not-included URLs as skipped, in that order of reasons', async () => {
    const out = await lastValueFrom(
      of(
        item([found('http://other/docs/'), found('http://site/docs/private/x'), found('http://site/blog/'), found('http://site/docs/a')]),
      ).pipe(inScope(rules)),
    );
    expect(codes(out)).toEqual(['out_of_scope', 'excluded', 'not_included', 'queued']);
  });

  it('lets requisites through --include, and from any host with requisitesAnyHost', async () => {
    const cdn = found('http://cdn.example/logo.png', { kind: 'requisite', target: 'requisite' });
    const own = found('http://site/img/logo.png', { kind: 'requisite', target: 'requisite' });
    expect(codes(await lastValueFrom(of(item([cdn, own])).pipe(inScope(rules))))).toEqual(['out_of_scope', 'queued']);
    expect(codes(await lastValueFrom(of(item([cdn, own])).pipe(inScope({ ...rules, requisitesAnyHost: true }))))).toEqual([
      'queued',
      'queued',
    ]);
  });

  it('leaves what is already judged, and link-only entries, alone', async () => {
    const canonical = found('http://other/canon', { kind: 'canonical', linkOnly: true });
    const skipped = found('http://other/x', { skip: { code: 'nofollow', message: '' } });
    const out = await lastValueFrom(of(item([canonical, skipped])).pipe(inScope(rules)));
    expect(out.discovered).toEqual([canonical, skipped]);
  });
});

describe('withinLimits', () => {
  const limits = { traps: { maxUrlLength: 100, maxPathRepeats: 3 }, maxDepth: 2, obeyNofollow: true, requisites: true };

  it('skips trap URLs, nofollow links and pages beyond --max-depth, but not requisites beyond it', async () => {
    const out = await lastValueFrom(
      of(
        item([
          found(`http://site/${'x'.repeat(200)}`),
          found('http://site/a/a/a/a'),
          found('http://site/nf', { nofollow: true }),
          found('http://site/deep', { depth: 3 }),
          found('http://site/deep.png', { depth: 3, kind: 'requisite', target: 'requisite' }),
          found('http://site/ok', { depth: 2 }),
        ]),
      ).pipe(withinLimits(limits)),
    );
    expect(codes(out)).toEqual(['url_too_long', 'trap_repeated_path', 'nofollow', 'max_depth', 'queued', 'queued']);
  });

  it('follows nofollow links when robots are ignored, and skips requisites when they are off', async () => {
    const out = await lastValueFrom(
      of(item([found('http://site/nf', { nofollow: true }), found('http://site/i.png', { kind: 'requisite', target: 'requisite' })])).pipe(
        withinLimits({ ...limits, obeyNofollow: false, requisites: false }),
      ),
    );
    expect(codes(out)).toEqual(['queued', 'no_requisites']);
  });
});
