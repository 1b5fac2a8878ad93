import { html, type Html } from './html.js';
import type { UiPage } from './ui-context.js';

/** The document around every page: the navigation bar, the stylesheet, scripts as files (the CSP allows no inline script). */
export function layout(page: UiPage, archiveName: string): Html {
  const styles = ['/assets/style.css', ...(page.styles ?? [])];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · ${archiveName} · crawlite</title>
${styles.map((href) => html`<link rel="stylesheet" href="${href}">\n`)}
</head>
<body${page.bare ? html` class="bare"` : ''}>
${
  page.bare
    ? page.body
    : html`<nav>
  <a class="brand" href="/">crawlite</a>
  <span class="muted">${archiveName}</span>
  <a href="/">Overview</a>
  <a href="/urls">URLs</a>
  <a href="/search">Search</a>
  <a href="/sql">SQL</a>
  <a href="/qa">QA</a>
  <a href="/live">Live</a>
  <form id="nav-search" action="/search" method="get" role="search"><input name="q" type="search" placeholder="search text" aria-label="search text"></form>
</nav>
<main>
${page.body}
</main>`
}
${['/assets/local-time.js', ...(page.scripts ?? [])].map((src) => html`<script src="${src}"></script>\n`)}
</body>
</html>
`;
}
