import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { startServer, type TestServer } from './test-server.js';

/** The Python 3.11 documentation as Debian installs it (`apt-get install python3.11-doc`): a real site of 529 pages. */
export const PYTHON_DOCS = '/usr/share/doc/python3.11/html';
export const HAS_PYTHON_DOCS = existsSync(join(PYTHON_DOCS, 'index.html'));

/** Says once, visibly, why a test file on the Python docs is skipped, and how to run it. */
export function noticeIfNoPythonDocs(file: string): void {
  if (!HAS_PYTHON_DOCS)
    console.log(`${file}: skipping the tests on the Python docs: they are not installed (apt-get install python3.11-doc; .ci/run does)`);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/** A directory's files over HTTP on 127.0.0.1, as a static web server gives them; nothing outside it. */
export function startDirectorySite(root: string): Promise<TestServer> {
  return startServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://site').pathname);
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) return void res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
}
