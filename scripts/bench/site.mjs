// The synthetic benchmark site: every page is a pure function of (page number, seed),
// so the site needs no files and the bench can list its URLs without crawling it.
//
// Page 0 is "/", page i (1 <= i < N) is /s<i % 64>/p<i>.html. Each page is about
// 15 KB of HTML with 20-40 anchors: absolute paths, relative paths, absolute URLs,
// links with fragments, exact duplicates, two off-site links (offsite.invalid, which
// must never be fetched) and a mailto. Every page links to i+1, 2i+1 and 2i+2, so
// all N pages are reachable from the root within about log2(N) hops.

export const SECTIONS = 64;
export const OFFSITE_HOST = 'offsite.invalid';
export const ROBOTS_TXT = 'User-agent: *\nAllow: /\n';
const TARGET_BYTES = 15_000;

/** mulberry32: small, fast, good enough for filler and link choice. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mix = (seed, n) => (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(n + 1, 0xc2b2ae35)) >>> 0;

export function pagePath(i) {
  return i === 0 ? '/' : `/s${i % SECTIONS}/p${i}.html`;
}

/** The page number a path names on a site of `pages` pages, or -1. */
export function pageNumber(path, pages) {
  if (path === '/') return 0;
  const match = /^\/s(\d{1,3})\/p(\d{1,9})\.html$/.exec(path);
  if (!match) return -1;
  const i = Number(match[2]);
  return i >= 1 && i < pages && i % SECTIONS === Number(match[1]) ? i : -1;
}

/** Every URL a crawl of the site fetches: robots.txt first, then the N pages. */
export function siteUrls(origin, pages) {
  const urls = [`${origin}/robots.txt`];
  for (let i = 0; i < pages; i += 1) urls.push(origin + pagePath(i));
  return urls;
}

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore ' +
  'magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo ' +
  'consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint ' +
  'occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum crawler archive ' +
  'frontier robots sitemap fetch parse queue sqlite resume keep-alive latency throughput'
).split(' ');

/** A pool of filler paragraphs built once per seed; pages pick from it, which keeps the server cheap. */
function fillerPool(seed) {
  const rand = prng(mix(seed, -1));
  return Array.from({ length: 48 }, () => {
    const words = [];
    const count = 60 + Math.floor(rand() * 60);
    for (let w = 0; w < count; w += 1) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    return `${words.join(' ')}.`;
  });
}

const pools = new Map();

function relativeHref(from, to) {
  const target = pagePath(to);
  if (from === 0) return to === 0 ? './' : target.slice(1);
  if (to === 0) return '../';
  return to % SECTIONS === from % SECTIONS ? `p${to}.html` : `..${target}`;
}

/**
 * The links of page i as written in its HTML (hrefs), and the in-site pages they name.
 * `origin` is the scheme, host and port absolute links use (the server passes its own listening address).
 */
export function pageLinks(i, pages, seed, origin) {
  const rand = prng(mix(seed, i));
  const pick = () => Math.floor(rand() * pages);
  const targets = [(i + 1) % pages, 2 * i + 1, 2 * i + 2].filter((t) => t < pages);
  const total = 18 + Math.floor(rand() * 21); // with the two nav links, 20-40 anchors in all
  const offsite = [`http://${OFFSITE_HOST}/p/${pick()}`, `https://${OFFSITE_HOST}/s/${pick()}.html`, 'mailto:editor@offsite.invalid'];
  while (targets.length < total - offsite.length) targets.push(pick());
  const hrefs = [];
  for (const to of targets) {
    const form = rand();
    let href;
    if (form < 0.35) href = pagePath(to);
    else if (form < 0.6) href = relativeHref(i, to);
    else if (form < 0.75) href = origin + pagePath(to);
    else if (form < 0.9) href = `${rand() < 0.5 ? pagePath(to) : relativeHref(i, to)}#sec-${Math.floor(rand() * 9)}`;
    else href = hrefs.length ? hrefs[hrefs.length - 1] : pagePath(to); // an exact duplicate of the previous link
    hrefs.push(href);
  }
  // Off-site links go in at seeded places.
  for (const href of offsite) hrefs.splice(Math.floor(rand() * (hrefs.length + 1)), 0, href);
  return hrefs;
}

/** The HTML of page i, about 15 KB. */
export function pageHtml(i, pages, seed, origin) {
  let pool = pools.get(seed);
  if (!pool) pools.set(seed, (pool = fillerPool(seed)));
  const rand = prng(mix(seed ^ 0x5bd1e995, i));
  const hrefs = pageLinks(i, pages, seed, origin);
  const title = i === 0 ? 'Bench site home' : `Bench page ${i}`;
  const parts = [
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title>`,
    `<meta name="viewport" content="width=device-width, initial-scale=1"></head>\n<body>`,
    `<header><nav><a href="/">Home</a> <a href="${origin}/">Home (absolute)</a></nav></header>\n<main><h1>${title}</h1>\n`,
  ];
  let size = parts.reduce((sum, part) => sum + part.length, 0);
  const target = TARGET_BYTES - 1_500 + Math.floor(rand() * 3_000);
  let link = 0;
  const perParagraph = Math.max(1, Math.ceil(hrefs.length / 12));
  for (let paragraph = 0; size < target - 200 || link < hrefs.length; paragraph += 1) {
    const text = pool[Math.floor(rand() * pool.length)];
    let anchors = '';
    for (let k = 0; k < perParagraph && link < hrefs.length; k += 1, link += 1) {
      anchors += ` <a href="${hrefs[link]}">link ${link}</a>`;
    }
    const html = `<p id="sec-${paragraph % 9}">${text}${anchors}</p>\n`;
    parts.push(html);
    size += html.length;
    if (paragraph > 200) break; // bounded, whatever the pool holds
  }
  parts.push(`</main>\n<footer><p>Page ${i} of ${pages}.</p></footer></body></html>\n`);
  return parts.join('');
}
