import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { execCli } from './cli.js';
import { ChangingSite } from './changing-site.js';
import { linksPage, startServer } from './test-server.js';

/** A page of about `bytes` bytes of paragraphs, one in a thousand of them different in each version. */
export function largePage(bytes: number, version: number): string {
  const parts = ['<!doctype html><html><head><title>A large page</title></head><body><h1>A large page</h1>\n'];
  let size = parts[0]!.length;
  for (let i = 0; size < bytes; i += 1) {
    const paragraph = `<p>Paragraph ${i} says the same thing in every crawl${i % 1000 === 0 ? `, but this one was written for version ${version}` : ''}.</p>\n`;
    parts.push(paragraph);
    size += paragraph.length;
  }
  parts.push('</body></html>\n');
  return parts.join('');
}

/**
 * Two crawls of a small site, and in each the capture of `/large` replaced by a page of about `bytes`
 * bytes (largePage): the archive of a site with one very large page that changed. Returns its URL.
 */
export async function largePageArchive(db: string, bytes: number): Promise<string> {
  const site = new ChangingSite((path, version) => {
    if (path === '/') return { body: linksPage(['/large', '/small']) };
    if (path === '/large') return { body: `<p>large, version ${version}</p>` };
    if (path === '/small') return { body: '<p>small</p>' };
    return undefined;
  });
  const server = await startServer(site.handle);
  const url = `${server.url}large`;
  try {
    expect(await execCli(['crawl', server.url, '--db', db, '-q'])).toMatchObject({ code: 0 });
    site.version = 2;
    expect(await execCli(['recrawl', db, '-q'])).toMatchObject({ code: 0 });
  } finally {
    await server.close();
  }
  const archive = new Database(db);
  try {
    const replace = archive.prepare('UPDATE body SET data = ?, size = ? WHERE id = ?');
    const bodies = [
      archive.prepare('SELECT c.body_id AS id FROM capture c JOIN url u ON u.id = c.url_id WHERE u.url = ?').get(url) as { id: number },
      archive.prepare('SELECT r.body_id AS id FROM response r JOIN url u ON u.id = r.url_id WHERE u.url = ?').get(url) as { id: number },
    ];
    bodies.forEach(({ id }, i) => {
      const body = Buffer.from(largePage(bytes, i + 1));
      replace.run(body, body.length, id);
    });
  } finally {
    archive.close();
  }
  return url;
}
