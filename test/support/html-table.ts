/** Text of an escaped HTML fragment: tags dropped, the five entities the UI writes undone. */
export function htmlText(fragment: string): string {
  return fragment
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The cells' text of each body row of the table with this id in a UI page. */
export function tableRows(page: string, id: string): string[][] {
  const table = new RegExp(`<table id="${id}"[^>]*>([\\s\\S]*?)</table>`).exec(page);
  if (!table) throw new Error(`no table#${id} in the page`);
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table[1]!)?.[1] ?? '';
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map(([, row]) =>
    [...row!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, cell]) => htmlText(cell!)),
  );
}

/** The href of the element with this id, its entities undone. */
export function hrefOf(page: string, id: string): string | undefined {
  const tag = new RegExp(`<a [^>]*\\bid="${id}"[^>]*>`).exec(page)?.[0];
  const href = tag && /\bhref="([^"]*)"/.exec(tag)?.[1];
  return href === undefined ? undefined : htmlText(href);
}
