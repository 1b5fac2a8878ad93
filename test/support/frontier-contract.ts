import { afterEach, describe, expect, it } from 'vitest';
import type {
  ClaimedUrl,
  DiscoveredUrl,
  FrontierPort,
  PageOutcome,
  PageSinkPort,
  Reason,
  StoredResponse,
  UrlState,
} from '../../src/pipeline/ports.js';
import { discovered } from './crawl-items.js';

/**
 * The rules of FrontierPort and PageSinkPort, written once and run against
 * every implementation. Where an implementation lacks what a rule needs
 * (the in-memory frontier keeps no bodies), its case is skipped, naming what
 * it lacks; where it does the thing differently, its case is expected to fail,
 * with why, so the difference stays visible until it is settled.
 */

/** What an implementation may or may not have; a rule names those it needs. */
export interface Capabilities {
  /** Leases that run out, so another claim may take the URL (a frontier shared by workers). */
  expiringLeases: boolean;
  /** URLs found but skipped are kept, with why (so a better way of finding them can queue them). */
  keepsSkipped: boolean;
  /** A page's response, body and links are stored and can be read back. */
  storesPages: boolean;
  /** --max-depth and --max-per-path are judged when found URLs are added. */
  limits: boolean;
  /** URLs skipped for an unavailable robots.txt are queued again when asked. */
  robotsRequeue: boolean;
  /** Each claim's lease is its own, so a claim given back and taken again is told from the one that took it. */
  distinctLeases: boolean;
  /** An origin's requests are paced across the workers sharing the frontier (--delay, Crawl-delay). */
  pacesAcrossWorkers: boolean;
}

/** The frontier's view of one URL: `fetching` for a URL held by a claim (PostgreSQL's `leased`). */
export interface UrlRow {
  state: UrlState;
  depth: number;
  /** The skip or failure code; null when none (or not kept). */
  code: string | null;
}

export interface StoredPage {
  status: number;
  body: string;
}

/** One worker's pair of ports on a frontier. */
export interface Worker {
  frontier: FrontierPort;
  sink: PageSinkPort;
}

export interface ContractSubject extends Worker {
  /** Queues root pages (depth 0), in order. */
  seed(urls: string[]): Promise<void>;
  row(key: string): Promise<UrlRow | undefined>;
  /** Every stored response of `key` (over all shards): none, or one. */
  pages(key: string): Promise<StoredPage[]>;
  /** Where the page stored at `key` links to, sorted. */
  links(key: string): Promise<string[]>;
  /** A second worker on the same frontier; the same ports where there is only one. */
  second(): Promise<Worker>;
  /** Makes every lease held run out now. */
  expireLeases(): Promise<void>;
  close(): Promise<void>;
}

export interface SubjectLimits {
  maxDepth?: number;
  maxPerPath?: number;
  /** The crawl's --delay, for a frontier that paces across workers. */
  delayMs?: number;
}

/** The rules, by a short name; the name is how an implementation says it disagrees with one. */
export const RULES = {
  claimOrder: 'claimFrom hands out queued URLs of one origin, oldest first, up to the limit',
  claimZero: 'claimFrom with a limit of 0 claims nothing',
  noDoubleClaim: 'a claimed URL is not handed out again until it is released',
  releaseCommitted: 'releasing a claim already committed changes nothing',
  commitAfterRelease:
    'a claim released and then committed is stored while no other claim has taken the URL: a lease given back is not a lease lost',
  commitAfterReleaseTaken: 'a claim released and then taken by another claim is refused at commit; only the other claim’s page is stored',
  triesCarried: 'a URL claimed again carries the attempts its earlier commit recorded',
  concurrentClaims: 'concurrent claims (of one worker or two) never hand one URL out twice',
  queuedOrigins: 'queuedOrigins lists only the origins that have queued URLs',
  requisitesOnly: "claimFrom(origin, n, 'requisite') claims only requisites",
  claimOwn: 'claimOwn adds and claims a new URL, and answers nothing for a URL done or in flight',
  claimOwnLeavesPages:
    'claimOwn answers nothing for a URL queued as a page, unless it is an origin’s robots.txt: that one it takes as its own',
  renewHeld: 'renew keeps a held claim and its commit stores the page',
  leaseTakeover: 'a lease run out lets another claim take the URL; the old holder can neither renew, release nor commit it',
  claimOwnRunOut: 'claimOwn takes a URL whose holder let its lease run out',
  leaseRunOutUntaken: 'a lease run out that no other claim took is still held: renew and commit keep it',
  dedupe: 'a URL found several times, in one commit or in several, is added once and counted once in newUrls',
  dedupeOneCommitAll: 'a URL found by two pages of one commitAll is added once, counted for the first of them',
  linkOnly: 'a link-only URL (rel=canonical) is recorded as a link, never queued',
  skippedKept: 'a URL found with a skip reason is kept as skipped with its code, and never claimed',
  skippedUpgrade: 'a URL skipped for its depth or a nofollow is queued when found by a way that allows it; other skips stay',
  skippedUpgradeOneCommit: 'the same upgrades hold when both finders commit in one commitAll',
  newUrlsCountsRevised: 'newUrls counts a known URL the commit queued again or moved closer, as well as new ones',
  newUrlsCountsRevisedOneCommit: 'the same counts hold, page by page, when both finders commit in one commitAll',
  cutShort: 'a page fetched at --max-depth is queued again when found within it; one fetched within it is not',
  maxPerPath: '--max-per-path queues at most N URLs per path; the rest are skipped as query variants, counted over commits',
  robotsRequeueOrigin: 'requeueRobotsUnavailable(origin) queues again only that origin’s URLs skipped for an unavailable robots.txt',
  robotsRequeueAll: 'requeueRobotsUnavailable() queues them again over all origins once some robots.txt failed',
  robotsRequeueRecovered:
    'requeueRobotsUnavailable() queues them again when no robots.txt is failed any more (the one that failed answered since, or a re-crawl queued it)',
  pagesFetched: 'pagesFetched counts pages done or failed, never requisites, robots.txt, skipped or queued URLs (--max-pages)',
  storedRobots: 'storedResponse answers the stored robots.txt of an origin, not due while it is done',
  storedOwnOnly: 'storedResponse answers a redirect hop of robots.txt, and nothing for a page (pages are the sink’s)',
  doneWithBody: 'a page committed done is stored with its body and all its links',
  pacingAtOnce:
    'with nothing to pace (one process, or no delay), sent and paceRetry answer at once, for a claim held or given back, and hold no claim back',
  pacingFromSend:
    'under a delay, a shared frontier hands an origin one URL a claim, and another worker’s claim there waits until that request was sent, then a delay',
  pacingRetry: 'under a delay, a retry waits until the origin’s next start across workers is due, and no longer once its signal aborts',
  allOrNothing: 'a commitAll that fails stores nothing of any of its pages: no state, body, link or new URL',
} as const;

export type RuleName = keyof typeof RULES;

export interface ContractImplementation {
  capabilities: Capabilities;
  /** Rules this implementation does differently, with a one-line why: their cases are expected to fail. */
  disagrees?: Partial<Record<RuleName, string>>;
  make(limits: SubjectLimits): Promise<ContractSubject>;
}

const SITE = 'http://site.test';
const at = (path: string) => `${SITE}${path}`;

const response = (body: string, status = 200): StoredResponse => ({
  status,
  headers: { 'content-type': 'text/html' },
  contentType: 'text/html',
  charset: null,
  location: null,
  body: Buffer.from(body),
  fetchedAt: '2026-01-01T00:00:00.000Z',
  elapsedMs: 3,
});

const skipped = (url: string, code: string, extra: Partial<DiscoveredUrl> = {}): DiscoveredUrl =>
  discovered(url, { skip: { code, message: code }, ...extra });

const done = (claim: ClaimedUrl, found: DiscoveredUrl[] = [], body = '<p>page</p>'): PageOutcome => ({
  claim,
  state: 'done',
  tries: 1,
  response: response(body),
  discovered: found,
});
const ended = (claim: ClaimedUrl, state: 'failed' | 'skipped', error: Reason): PageOutcome => ({
  claim,
  state,
  tries: 1,
  error,
  discovered: [],
});

/** Claims `key` alone: everything else its origin had queued goes back. */
async function claimKey(frontier: FrontierPort, key: string): Promise<ClaimedUrl> {
  const claims = await frontier.claimFrom(new URL(key).origin, 1_000);
  const wanted = claims.find((claim) => claim.key === key);
  for (const claim of claims) if (claim !== wanted) await frontier.release(claim);
  if (!wanted) throw new Error(`${key} was not claimable`);
  return wanted;
}

const keys = (claims: ClaimedUrl[]) => claims.map((claim) => claim.key);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The pace asked of a frontier that paces across workers; gaps are asserted as lower bounds only (a busy machine only lengthens them). */
const DELAY_MS = 200;
/** A timer may fire a millisecond early, and the server's clock books the start. */
const EARLY_MS = 5;

/** Runs the contract against one implementation. */
export function describeFrontierContract(name: string, impl: ContractImplementation): void {
  describe(`${name} keeps the frontier contract`, () => {
    let open: ContractSubject | undefined;
    afterEach(async () => {
      await open?.close();
      open = undefined;
    });
    const subject = async (limits: SubjectLimits = {}) => (open = await impl.make(limits));

    const rule = (id: RuleName, needs: (keyof Capabilities)[], test: () => Promise<void>) => {
      const missing = needs.filter((capability) => !impl.capabilities[capability]);
      const differs = impl.disagrees?.[id];
      if (missing.length > 0) it.skip(`${RULES[id]} (skipped: ${name} has no ${missing.join(', ')})`, test);
      else if (differs) it.fails(`${RULES[id]} (differs: ${differs})`, test);
      else it(RULES[id], test);
    };

    describe('claiming', () => {
      rule('claimOrder', [], async () => {
        const s = await subject();
        await s.seed([at('/1'), at('/2'), at('/3'), 'http://other.test/1']);
        expect(keys(await s.frontier.claimFrom(SITE, 2))).toEqual([at('/1'), at('/2')]);
        expect(keys(await s.frontier.claimFrom(SITE, 5))).toEqual([at('/3')]);
        expect(await s.row('http://other.test/1')).toMatchObject({ state: 'queued' });
      });

      rule('claimZero', [], async () => {
        const s = await subject();
        await s.seed([at('/1')]);
        expect(await s.frontier.claimFrom(SITE, 0)).toEqual([]);
        expect(await s.row(at('/1'))).toMatchObject({ state: 'queued' });
      });

      rule('noDoubleClaim', [], async () => {
        const s = await subject();
        await s.seed([at('/1'), at('/2')]);
        const [first, second] = await s.frontier.claimFrom(SITE, 2);
        expect(await s.frontier.claimFrom(SITE, 2)).toEqual([]);
        expect(await s.row(at('/1'))).toMatchObject({ state: 'fetching' });
        await s.frontier.release(first!);
        expect(await s.row(at('/1'))).toMatchObject({ state: 'queued' });
        expect(keys(await s.frontier.claimFrom(SITE, 2))).toEqual([at('/1')]);
        expect(second!.key).toBe(at('/2'));
      });

      rule('releaseCommitted', [], async () => {
        const s = await subject();
        await s.seed([at('/1')]);
        const [claim] = await s.frontier.claimFrom(SITE, 1);
        await s.sink.commit(done(claim!));
        await s.frontier.release(claim!);
        expect(await s.row(at('/1'))).toMatchObject({ state: 'done' });
        expect(await s.frontier.claimFrom(SITE, 1)).toEqual([]);
      });

      rule('commitAfterRelease', [], async () => {
        const s = await subject();
        await s.seed([at('/1')]);
        const [claim] = await s.frontier.claimFrom(SITE, 1);
        await s.frontier.release(claim!);
        expect(await s.sink.commit(done(claim!, [discovered(at('/2'))]))).toEqual({ newUrls: 1 });
        expect(await s.row(at('/1'))).toMatchObject({ state: 'done' });
        expect(keys(await s.frontier.claimFrom(SITE, 5))).toEqual([at('/2')]);
        if (impl.capabilities.storesPages) expect(await s.pages(at('/1'))).toEqual([{ status: 200, body: '<p>page</p>' }]);
      });

      rule('commitAfterReleaseTaken', ['distinctLeases'], async () => {
        const s = await subject();
        await s.seed([at('/1')]);
        const other = await s.second();
        const [mine] = await s.frontier.claimFrom(SITE, 1);
        await s.frontier.release(mine!);
        const [theirs] = await other.frontier.claimFrom(SITE, 1);
        expect(theirs?.key).toBe(at('/1'));
        expect(await s.sink.commit(done(mine!, [discovered(at('/lost'))], 'given back'))).toEqual({ newUrls: 0, leaseLost: true });
        expect(await s.row(at('/1'))).toMatchObject({ state: 'fetching' });
        expect(await s.row(at('/lost'))).toBeUndefined();
        expect(await other.sink.commit(done(theirs!, [], 'taken'))).toEqual({ newUrls: 0 });
        expect(await s.row(at('/1'))).toMatchObject({ state: 'done' });
        if (impl.capabilities.storesPages) expect(await s.pages(at('/1'))).toEqual([{ status: 200, body: 'taken' }]);
      });

      rule('triesCarried', [], async () => {
        const s = await subject();
        const robots = { url: at('/robots.txt'), key: at('/robots.txt'), origin: SITE, kind: 'robots' as const, depth: 0, redirectHops: 0 };
        await s.sink.commit({ ...ended((await s.frontier.claimOwn(robots))!, 'failed', { code: 'http_503', message: '503' }), tries: 3 });
        expect(await s.frontier.claimOwn(robots)).toMatchObject({ key: robots.key, tries: 3 });
      });

      rule('concurrentClaims', [], async () => {
        const s = await subject();
        const all = Array.from({ length: 12 }, (_, i) => at(`/${i}`));
        await s.seed(all);
        const other = await s.second();
        const rounds = await Promise.all(
          [s.frontier, other.frontier, s.frontier, other.frontier].map((frontier) => frontier.claimFrom(SITE, 4)),
        );
        const rest = await s.frontier.claimFrom(SITE, 100);
        const claimed = [...rounds.flatMap(keys), ...keys(rest)];
        expect(new Set(claimed).size).toBe(claimed.length);
        expect(claimed.sort()).toEqual([...all].sort());
      });

      rule('queuedOrigins', [], async () => {
        const s = await subject();
        await s.seed([at('/1'), 'http://other.test/1']);
        expect((await s.frontier.queuedOrigins()).sort()).toEqual(['http://other.test', SITE]);
        await s.frontier.claimFrom(SITE, 5);
        expect(await s.frontier.queuedOrigins()).toEqual(['http://other.test']);
      });

      rule('requisitesOnly', [], async () => {
        const s = await subject();
        await s.seed([at('/')]);
        const [root] = await s.frontier.claimFrom(SITE, 1);
        await s.sink.commit(
          done(root!, [discovered(at('/page')), discovered(at('/style.css'), { kind: 'requisite', target: 'requisite' })]),
        );
        const requisites = await s.frontier.claimFrom(SITE, 5, 'requisite');
        expect(requisites.map((claim) => [claim.key, claim.kind])).toEqual([[at('/style.css'), 'requisite']]);
        expect(keys(await s.frontier.claimFrom(SITE, 5))).toEqual([at('/page')]);
      });

      rule('claimOwn', [], async () => {
        const s = await subject();
        const robots = { url: at('/robots.txt'), key: at('/robots.txt'), origin: SITE, kind: 'robots' as const, depth: 0, redirectHops: 0 };
        const claim = await s.frontier.claimOwn(robots);
        expect(claim).toMatchObject({ key: robots.key, kind: 'robots' });
        expect(await s.frontier.claimOwn(robots)).toBeUndefined();
        expect(await s.frontier.claimFrom(SITE, 5)).toEqual([]);
        await s.sink.commit(done(claim!, [], 'User-agent: *'));
        expect(await s.frontier.claimOwn(robots)).toBeUndefined();
        expect(await s.row(robots.key)).toMatchObject({ state: 'done' });
      });

      rule('claimOwnLeavesPages', [], async () => {
        const s = await subject();
        await s.seed([at('/'), at('/robots.txt')]);
        // robots.txt redirects to the home page: the hop is left to be crawled as a page.
        expect(
          await s.frontier.claimOwn({ url: at('/'), key: at('/'), origin: SITE, kind: 'robots', depth: 0, redirectHops: 1 }),
        ).toBeUndefined();
        expect(await s.row(at('/'))).toMatchObject({ state: 'queued' });
        const own = await s.frontier.claimOwn({
          url: at('/robots.txt'),
          key: at('/robots.txt'),
          origin: SITE,
          kind: 'robots',
          depth: 0,
          redirectHops: 0,
        });
        expect(own).toMatchObject({ key: at('/robots.txt'), kind: 'robots' });
        expect((await s.frontier.claimFrom(SITE, 5)).map((claim) => [claim.key, claim.kind])).toEqual([[at('/'), 'page']]);
      });
    });

    describe('leases', () => {
      rule('renewHeld', [], async () => {
        const s = await subject();
        await s.seed([at('/1')]);
        const [claim] = await s.frontier.claimFrom(SITE, 1);
        const [lease] = await s.frontier.renew([claim!]);
        expect(lease).toBeDefined();
        expect(lease!.token).toBe(claim!.lease.token);
        expect(await s.sink.commit(done({ ...claim!, lease: lease! }))).toEqual({ newUrls: 0 });
        expect(await s.row(at('/1'))).toMatchObject({ state: 'done' });
      });

      rule('leaseTakeover', ['expiringLeases'], async () => {
        const s = await subject();
        await s.seed([at('/1')]);
        const other = await s.second();
        const [mine] = await s.frontier.claimFrom(SITE, 1);
        await s.expireLeases();
        expect(await s.frontier.queuedOrigins()).toEqual([SITE]);
        const [theirs] = await other.frontier.claimFrom(SITE, 1);
        expect(theirs?.key).toBe(at('/1'));
        expect(theirs!.lease.token).not.toBe(mine!.lease.token);
        expect(await s.frontier.renew([mine!])).toEqual([undefined]);
        await s.frontier.release(mine!);
        expect(await s.row(at('/1'))).toMatchObject({ state: 'fetching' });
        expect(await s.sink.commit(done(mine!, [discovered(at('/lost'))], 'late'))).toEqual({ newUrls: 0, leaseLost: true });
        expect(await s.row(at('/lost'))).toBeUndefined();
        expect(await other.sink.commit(done(theirs!, [], 'taken over'))).toEqual({ newUrls: 0 });
        expect(await s.row(at('/1'))).toMatchObject({ state: 'done' });
        if (impl.capabilities.storesPages) expect(await s.pages(at('/1'))).toEqual([{ status: 200, body: 'taken over' }]);
      });

      rule('claimOwnRunOut', ['expiringLeases'], async () => {
        const s = await subject();
        const robots = { url: at('/robots.txt'), key: at('/robots.txt'), origin: SITE, kind: 'robots' as const, depth: 0, redirectHops: 0 };
        const other = await s.second();
        const mine = await s.frontier.claimOwn(robots);
        await s.expireLeases();
        const theirs = await other.frontier.claimOwn(robots);
        expect(theirs).toMatchObject({ key: robots.key, kind: 'robots' });
        expect(theirs!.lease.token).not.toBe(mine!.lease.token);
      });

      rule('leaseRunOutUntaken', ['expiringLeases'], async () => {
        const s = await subject();
        await s.seed([at('/1')]);
        const [claim] = await s.frontier.claimFrom(SITE, 1);
        await s.expireLeases();
        const [lease] = await s.frontier.renew([claim!]);
        expect(lease).toBeDefined();
        expect(await s.sink.commit(done({ ...claim!, lease: lease! }))).toEqual({ newUrls: 0 });
        expect(await s.row(at('/1'))).toMatchObject({ state: 'done' });
      });
    });

    describe('found URLs', () => {
      rule('dedupe', [], async () => {
        const s = await subject();
        await s.seed([at('/'), at('/side')]);
        const [root, side] = await s.frontier.claimFrom(SITE, 2);
        expect(await s.sink.commit(done(root!, [discovered(at('/a')), discovered(at('/a')), discovered(at('/b'))]))).toEqual({
          newUrls: 2,
        });
        expect(await s.sink.commit(done(side!, [discovered(at('/a')), discovered(at('/b'))]))).toEqual({ newUrls: 0 });
        expect(keys(await s.frontier.claimFrom(SITE, 10))).toEqual([at('/a'), at('/b')]);
      });

      rule('dedupeOneCommitAll', [], async () => {
        const s = await subject();
        await s.seed([at('/'), at('/side')]);
        const [root, side] = await s.frontier.claimFrom(SITE, 2);
        const results = await s.sink.commitAll([
          done(root!, [discovered(at('/a'))]),
          done(side!, [discovered(at('/a')), discovered(at('/b'))]),
        ]);
        expect(results).toEqual([{ newUrls: 1 }, { newUrls: 1 }]);
        expect(keys(await s.frontier.claimFrom(SITE, 10))).toEqual([at('/a'), at('/b')]);
      });

      rule('linkOnly', [], async () => {
        const s = await subject();
        await s.seed([at('/')]);
        const [root] = await s.frontier.claimFrom(SITE, 1);
        const canonical = discovered(at('/canonical'), { kind: 'canonical', linkOnly: true });
        expect(await s.sink.commit(done(root!, [canonical]))).toEqual({ newUrls: 0 });
        expect(await s.row(at('/canonical'))).toBeUndefined();
        expect(await s.frontier.claimFrom(SITE, 5)).toEqual([]);
        if (impl.capabilities.storesPages) expect(await s.links(at('/'))).toEqual([at('/canonical')]);
      });

      rule('skippedKept', ['keepsSkipped'], async () => {
        const s = await subject();
        await s.seed([at('/')]);
        const [root] = await s.frontier.claimFrom(SITE, 1);
        await s.sink.commit(done(root!, [skipped('http://elsewhere.test/', 'out_of_scope'), skipped(at('/nf'), 'nofollow')]));
        expect(await s.row('http://elsewhere.test/')).toEqual({ state: 'skipped', depth: 1, code: 'out_of_scope' });
        expect(await s.row(at('/nf'))).toEqual({ state: 'skipped', depth: 1, code: 'nofollow' });
        expect(await s.frontier.queuedOrigins()).toEqual([]);
        expect(await s.frontier.claimFrom(SITE, 5)).toEqual([]);
      });

      const firstFinds = [
        skipped(at('/deep'), 'max_depth', { depth: 5 }),
        skipped(at('/nf'), 'nofollow'),
        skipped('http://elsewhere.test/', 'out_of_scope'),
        discovered(at('/q'), { depth: 4 }),
      ];
      const betterFinds = [
        discovered(at('/deep'), { depth: 2 }),
        discovered(at('/nf')),
        discovered('http://elsewhere.test/', { depth: 0 }),
        discovered(at('/q'), { depth: 2 }),
      ];
      const upgraded = async (s: ContractSubject) => {
        expect(await s.row(at('/deep'))).toEqual({ state: 'queued', depth: 2, code: null });
        expect(await s.row(at('/nf'))).toEqual({ state: 'queued', depth: 1, code: null });
        // Scope does not change with the way a URL is found: out of scope stays skipped, at the shorter depth.
        expect(await s.row('http://elsewhere.test/')).toEqual({ state: 'skipped', depth: 0, code: 'out_of_scope' });
        expect(await s.row(at('/q'))).toEqual({ state: 'queued', depth: 2, code: null });
        expect(keys(await s.frontier.claimFrom(SITE, 10))).toEqual([at('/deep'), at('/nf'), at('/q')]);
      };

      rule('skippedUpgrade', ['keepsSkipped'], async () => {
        const s = await subject();
        await s.seed([at('/'), at('/side')]);
        const [root, side] = await s.frontier.claimFrom(SITE, 2);
        await s.sink.commit(done(root!, firstFinds));
        expect(await s.row(at('/deep'))).toMatchObject({ state: 'skipped', code: 'max_depth' });
        await s.sink.commit(done(side!, betterFinds));
        await upgraded(s);
      });

      rule('skippedUpgradeOneCommit', ['keepsSkipped'], async () => {
        const s = await subject();
        await s.seed([at('/'), at('/side')]);
        const [root, side] = await s.frontier.claimFrom(SITE, 2);
        await s.sink.commitAll([done(root!, firstFinds), done(side!, betterFinds)]);
        await upgraded(s);
      });

      rule('newUrlsCountsRevised', ['keepsSkipped'], async () => {
        const s = await subject();
        await s.seed([at('/'), at('/side')]);
        const [root, side] = await s.frontier.claimFrom(SITE, 2);
        expect(await s.sink.commit(done(root!, firstFinds))).toEqual({ newUrls: 4 });
        // /deep and /nf queued again, /elsewhere and /q moved closer: four.
        expect(await s.sink.commit(done(side!, [...betterFinds, discovered(at('/new'))]))).toEqual({ newUrls: 5 });
      });

      rule('newUrlsCountsRevisedOneCommit', ['keepsSkipped'], async () => {
        const s = await subject();
        await s.seed([at('/'), at('/side')]);
        const [root, side] = await s.frontier.claimFrom(SITE, 2);
        // Found again at the same depth, a URL the first page added changes nothing: /again counts once.
        const results = await s.sink.commitAll([
          done(root!, [...firstFinds, discovered(at('/again'))]),
          done(side!, [...betterFinds, discovered(at('/again'))]),
        ]);
        expect(results).toEqual([{ newUrls: 5 }, { newUrls: 4 }]);
        expect(await s.row(at('/deep'))).toEqual({ state: 'queued', depth: 2, code: null });
        expect(await s.row(at('/again'))).toEqual({ state: 'queued', depth: 1, code: null });
      });

      rule('maxPerPath', ['keepsSkipped', 'limits'], async () => {
        const s = await subject({ maxPerPath: 2 });
        await s.seed([at('/'), at('/side')]);
        const [root, side] = await s.frontier.claimFrom(SITE, 2);
        const variant = (query: string) => discovered(at(`/list?${query}`), { pathKey: at('/list') });
        expect(await s.sink.commit(done(root!, [variant('a'), variant('b'), variant('c')]))).toEqual({ newUrls: 3 });
        expect(await s.row(at('/list?c'))).toEqual({ state: 'skipped', depth: 1, code: 'trap_query_variants' });
        // Found again, a and b are not new variants: they stay queued; d is one more, past the cap.
        await s.sink.commit(done(side!, [variant('a'), variant('b'), variant('d')]));
        expect(await s.row(at('/list?a'))).toMatchObject({ state: 'queued' });
        expect(await s.row(at('/list?d'))).toMatchObject({ state: 'skipped', code: 'trap_query_variants' });
        expect(keys(await s.frontier.claimFrom(SITE, 10))).toEqual([at('/list?a'), at('/list?b')]);
      });

      rule('cutShort', ['keepsSkipped', 'limits'], async () => {
        const s = await subject({ maxDepth: 2 });
        await s.seed([at('/'), at('/side')]);
        await s.sink.commit(done(await claimKey(s.frontier, at('/')), [discovered(at('/a'))]));
        await s.sink.commit(done(await claimKey(s.frontier, at('/a')), [discovered(at('/deep'), { depth: 2 })]));
        // At the limit, its links were not followed.
        await s.sink.commit(done(await claimKey(s.frontier, at('/deep')), [skipped(at('/deeper'), 'max_depth', { depth: 3 })]));
        expect(await s.row(at('/deep'))).toEqual({ state: 'done', depth: 2, code: null });
        await s.sink.commit(done(await claimKey(s.frontier, at('/side')), [discovered(at('/deep')), discovered(at('/a'))]));
        expect(await s.row(at('/deep'))).toEqual({ state: 'queued', depth: 1, code: null });
        expect(await s.row(at('/a'))).toEqual({ state: 'done', depth: 1, code: null });
        expect(keys(await s.frontier.claimFrom(SITE, 10))).toEqual([at('/deep')]);
      });
    });

    describe('robots.txt outages', () => {
      const ROBOTS_A = {
        url: 'http://a.test/robots.txt',
        key: 'http://a.test/robots.txt',
        origin: 'http://a.test',
        kind: 'robots' as const,
        depth: 0,
        redirectHops: 0,
      };
      const unavailable = { code: 'robots_unavailable', message: 'robots.txt could not be had' };
      /** a.test's robots.txt failed; /1 of a.test and b.test were refused for it, /2 of a.test disallowed by its rules. */
      const outage = async (s: ContractSubject, robotsFailed: boolean) => {
        await s.seed(['http://a.test/1', 'http://a.test/2', 'http://b.test/1']);
        if (robotsFailed)
          await s.sink.commit(ended((await s.frontier.claimOwn(ROBOTS_A))!, 'failed', { code: 'http_503', message: '503' }));
        await s.sink.commit(ended(await claimKey(s.frontier, 'http://a.test/1'), 'skipped', unavailable));
        await s.sink.commit(ended(await claimKey(s.frontier, 'http://a.test/2'), 'skipped', { code: 'robots', message: 'disallowed' }));
        await s.sink.commit(ended(await claimKey(s.frontier, 'http://b.test/1'), 'skipped', unavailable));
      };

      rule('robotsRequeueOrigin', ['robotsRequeue'], async () => {
        const s = await subject();
        await outage(s, true);
        expect(await s.frontier.requeueRobotsUnavailable('http://a.test')).toBe(1);
        expect(await s.row('http://a.test/1')).toEqual({ state: 'queued', depth: 0, code: null });
        expect(await s.row('http://a.test/2')).toMatchObject({ state: 'skipped', code: 'robots' });
        expect(await s.row('http://b.test/1')).toMatchObject({ state: 'skipped', code: 'robots_unavailable' });
        expect(keys(await s.frontier.claimFrom('http://a.test', 5))).toEqual(['http://a.test/1']);
      });

      rule('robotsRequeueAll', ['robotsRequeue'], async () => {
        const s = await subject();
        await outage(s, true);
        expect(await s.frontier.requeueRobotsUnavailable()).toBe(2);
        expect((await s.frontier.queuedOrigins()).sort()).toEqual(['http://a.test', 'http://b.test']);
        expect(await s.row('http://a.test/2')).toMatchObject({ state: 'skipped', code: 'robots' });
      });

      rule('robotsRequeueRecovered', ['robotsRequeue'], async () => {
        const s = await subject();
        await outage(s, false);
        // a.test's robots.txt answered after its outage, and the run stopped before it queued what the outage refused.
        await s.sink.commit(done((await s.frontier.claimOwn(ROBOTS_A))!, [], 'User-agent: *'));
        expect(await s.frontier.requeueRobotsUnavailable()).toBe(2);
        expect(await s.row('http://b.test/1')).toEqual({ state: 'queued', depth: 0, code: null });
        expect(await s.row('http://a.test/2')).toMatchObject({ state: 'skipped', code: 'robots' });
      });
    });

    describe('pacing', () => {
      rule('pacingAtOnce', [], async () => {
        const s = await subject();
        await s.seed([at('/1'), at('/2')]);
        const other = await s.second();
        const [mine] = await s.frontier.claimFrom(SITE, 1);
        // Its request has not gone out: nothing is held back for it.
        expect(keys(await other.frontier.claimFrom(SITE, 1))).toEqual([at('/2')]);
        await s.frontier.paceRetry(mine!, new AbortController().signal);
        await s.frontier.sent(mine!);
        await s.frontier.release(mine!);
        await s.frontier.sent(mine!);
        await s.frontier.paceRetry(mine!, new AbortController().signal);
        expect(await s.row(at('/1'))).toMatchObject({ state: 'queued' });
      });

      rule('pacingFromSend', ['pacesAcrossWorkers'], async () => {
        const s = await subject({ delayMs: DELAY_MS });
        await s.seed([at('/1'), at('/2')]);
        const other = await s.second();
        const mine = await s.frontier.claimFrom(SITE, 5);
        expect(keys(mine)).toEqual([at('/1')]);
        let theirs: ClaimedUrl[] | undefined;
        const waiting = other.frontier.claimFrom(SITE, 5).then((claims) => (theirs = claims));
        await sleep(DELAY_MS * 2);
        expect(theirs).toBeUndefined();
        const sentAt = Date.now();
        await s.frontier.sent(mine[0]!);
        await waiting;
        expect(keys(theirs!)).toEqual([at('/2')]);
        expect(Date.now() - sentAt).toBeGreaterThanOrEqual(DELAY_MS - EARLY_MS);
      });

      rule('pacingRetry', ['pacesAcrossWorkers'], async () => {
        const s = await subject({ delayMs: DELAY_MS });
        await s.seed([at('/1')]);
        const [mine] = await s.frontier.claimFrom(SITE, 5);
        const sentAt = Date.now();
        await s.frontier.sent(mine!);
        await s.frontier.paceRetry(mine!, new AbortController().signal);
        expect(Date.now() - sentAt).toBeGreaterThanOrEqual(DELAY_MS - EARLY_MS);
        // The retry is now the request yet to go out: a second one waits for it, unless told to stop.
        const stop = new AbortController();
        stop.abort();
        await s.frontier.paceRetry(mine!, stop.signal);
      });
    });

    describe('pages', () => {
      rule('pagesFetched', [], async () => {
        const s = await subject();
        await s.seed([at('/p1'), at('/p2'), at('/p3'), at('/p4')]);
        expect(await s.frontier.pagesFetched()).toBe(0);
        await s.sink.commit(
          done(await claimKey(s.frontier, at('/p1')), [discovered(at('/style.css'), { kind: 'requisite', target: 'requisite' })]),
        );
        await s.sink.commit(ended(await claimKey(s.frontier, at('/p2')), 'failed', { code: 'http_500', message: '500' }));
        await s.sink.commit(ended(await claimKey(s.frontier, at('/p3')), 'skipped', { code: 'robots', message: 'disallowed' }));
        await s.sink.commit(done(await claimKey(s.frontier, at('/style.css')), [], 'p {}'));
        const robots = await s.frontier.claimOwn({
          url: at('/robots.txt'),
          key: at('/robots.txt'),
          origin: SITE,
          kind: 'robots',
          depth: 0,
          redirectHops: 0,
        });
        await s.sink.commit(done(robots!, [], 'User-agent: *'));
        expect(await s.frontier.pagesFetched()).toBe(2);
      });

      const robotsOf = { url: at('/robots.txt'), key: at('/robots.txt'), origin: SITE, kind: 'robots' as const, depth: 0, redirectHops: 0 };

      rule('storedRobots', ['storesPages'], async () => {
        const s = await subject();
        expect(await s.frontier.storedResponse(robotsOf.key)).toBeUndefined();
        await s.sink.commit(done((await s.frontier.claimOwn(robotsOf))!, [], 'User-agent: *\nDisallow: /x'));
        const stored = await s.frontier.storedResponse(robotsOf.key);
        expect(stored && { ...stored, body: Buffer.from(stored.body).toString() }).toEqual({
          status: 200,
          body: 'User-agent: *\nDisallow: /x',
          location: null,
        });
      });

      rule('storedOwnOnly', ['storesPages'], async () => {
        const s = await subject();
        await s.seed([at('/')]);
        const [root] = await s.frontier.claimFrom(SITE, 1);
        await s.sink.commit(done(root!, [], 'the page'));
        expect(await s.frontier.storedResponse(at('/'))).toBeUndefined();
        // robots.txt redirects: its hop is claimed as the crawler's own and answered like robots.txt itself.
        const hop = { ...robotsOf, url: at('/rules.txt'), key: at('/rules.txt') };
        const moved = {
          ...done((await s.frontier.claimOwn(hop))!, [], ''),
          response: { ...response('', 301), location: at('/elsewhere.txt') },
        };
        await s.sink.commit(moved);
        const stored = await s.frontier.storedResponse(hop.key);
        expect(stored && { ...stored, body: Buffer.from(stored.body).toString() }).toEqual({
          status: 301,
          body: '',
          location: at('/elsewhere.txt'),
        });
      });

      rule('doneWithBody', ['storesPages'], async () => {
        const s = await subject();
        await s.seed([at('/')]);
        const [root] = await s.frontier.claimFrom(SITE, 1);
        const found = [
          discovered(at('/a')),
          skipped('http://elsewhere.test/', 'out_of_scope'),
          discovered(at('/c'), { kind: 'canonical', linkOnly: true }),
        ];
        expect(await s.sink.commit(done(root!, found, '<a href=/a>hello</a>'))).toEqual({ newUrls: 2 });
        expect(await s.row(at('/'))).toMatchObject({ state: 'done' });
        expect(await s.pages(at('/'))).toEqual([{ status: 200, body: '<a href=/a>hello</a>' }]);
        expect(await s.links(at('/'))).toEqual(['http://elsewhere.test/', at('/a'), at('/c')]);
      });

      rule('allOrNothing', ['storesPages'], async () => {
        const s = await subject();
        await s.seed([at('/x'), at('/y')]);
        const [x, y] = await s.frontier.claimFrom(SITE, 2);
        // A state the store refuses: the write fails after the other page's rows were written.
        const broken = { ...done(y!, [discovered(at('/from-y'))]), state: 'bogus' as 'done' };
        await expect(s.sink.commitAll([done(x!, [discovered(at('/from-x'))], 'x'), broken])).rejects.toThrow();
        for (const key of [at('/x'), at('/y')]) {
          expect(await s.row(key)).toMatchObject({ state: 'fetching' });
          expect(await s.pages(key)).toEqual([]);
          expect(await s.links(key)).toEqual([]);
        }
        expect(await s.row(at('/from-x'))).toBeUndefined();
        expect(await s.row(at('/from-y'))).toBeUndefined();
      });
    });
  });
}
