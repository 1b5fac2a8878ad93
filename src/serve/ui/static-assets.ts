import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { LIVE_CSS, LIVE_JS } from './assets/live-js.js';
import { LOCAL_TIME_JS } from './assets/local-time-js.js';
import { REPLAY_BAR_JS } from './assets/replay-bar-js.js';
import { SQL_BOX_JS } from './assets/sql-box-js.js';
import { SQL_CSS } from './assets/sql-css.js';
import { STYLE_CSS } from './assets/style-css.js';
import { TIMELINE_JS } from './assets/timeline-js.js';

export interface Asset {
  type: string;
  body: Buffer;
}

/** uPlot's files from the installed package, found from this module (dist/ or the bundle) by Node's own resolution. */
function packageFile(specifier: string): () => Buffer {
  let bytes: Buffer | undefined;
  return () => (bytes ??= readFileSync(createRequire(import.meta.url).resolve(specifier)));
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/**
 * Every file the UI serves, by exact path: nothing else is read from disk, so no
 * request path (`/assets/../../package.json`) can reach any other file.
 */
const ASSETS: Record<string, { type: string; body: () => Buffer }> = {
  '/assets/style.css': { type: CSS, body: () => Buffer.from(STYLE_CSS) },
  '/assets/local-time.js': { type: JS, body: () => Buffer.from(LOCAL_TIME_JS) },
  '/assets/replay-bar.js': { type: JS, body: () => Buffer.from(REPLAY_BAR_JS) },
  '/assets/timeline.js': { type: JS, body: () => Buffer.from(TIMELINE_JS) },
  '/assets/live.js': { type: JS, body: () => Buffer.from(LIVE_JS) },
  '/assets/live.css': { type: CSS, body: () => Buffer.from(LIVE_CSS) },
  '/assets/sql-box.js': { type: JS, body: () => Buffer.from(SQL_BOX_JS) },
  '/assets/sql.css': { type: CSS, body: () => Buffer.from(SQL_CSS) },
  '/assets/uPlot.iife.min.js': { type: JS, body: packageFile('uplot/dist/uPlot.iife.min.js') },
  '/assets/uPlot.min.css': { type: CSS, body: packageFile('uplot/dist/uPlot.min.css') },
};

export function staticAsset(path: string): Asset | undefined {
  const asset = Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined;
  return asset && { type: asset.type, body: asset.body() };
}
