import { Parser } from 'htmlparser2';

/** Which attribute of which tag names another page. Requisites (img, script, stylesheets) are not pages. */
const LINK_ATTRIBUTE: Record<string, string> = {
  a: 'href',
  area: 'href',
  link: 'href',
  iframe: 'src',
  frame: 'src',
};

/** `<link rel>` values that name a page requisite or a connection hint, not a page. */
const NOT_A_PAGE_REL = new Set(['stylesheet', 'icon', 'apple-touch-icon', 'mask-icon', 'preload', 'modulepreload', 'prefetch', 'preconnect', 'dns-prefetch', 'manifest']);

export interface ExtractedLinks {
  /** The first `<base href>`, as written. */
  base?: string;
  /** Link targets as written (entities decoded), in document order. */
  hrefs: string[];
}

function isPageLink(tag: string, attribs: Record<string, string>): boolean {
  if (tag !== 'link') return true;
  const rel = (attribs.rel ?? '').toLowerCase().split(/\s+/);
  return !rel.some((token) => NOT_A_PAGE_REL.has(token));
}

/** Streams HTML through htmlparser2 and collects page links; no DOM is built. */
export function extractLinks(html: string): ExtractedLinks {
  const found: ExtractedLinks = { hrefs: [] };
  const parser = new Parser(
    {
      onopentag(tag, attribs) {
        if (tag === 'base') {
          if (found.base === undefined && attribs.href) found.base = attribs.href;
          return;
        }
        const attribute = LINK_ATTRIBUTE[tag];
        if (attribute === undefined) return;
        const value = attribs[attribute];
        if (value !== undefined && value.trim() !== '' && isPageLink(tag, attribs)) found.hrefs.push(value);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return found;
}
