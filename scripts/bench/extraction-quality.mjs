#!/usr/bin/env node
// Scores a main-content extractor against the article-extraction benchmark (scrapinghub/article-extraction-benchmark):
// its 181 pages and their ground-truth article bodies, with its own metric (extraction-metric.mjs). The data is
// not ours to ship: pass a checkout of that repository with --data. See docs/extraction-quality.md.
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { evaluate, precisionScore, recallScore } from './extraction-metric.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DEFAULT_MODULE = resolve(HERE, '../../dist/markdown/index.js');
// The benchmark's Readability.js run gave every page this URL (extractors/readability_js/cli.js).
const PAGE_URL = 'https://fake-url.com/';
const FETCH_HINT = 'git clone https://github.com/scrapinghub/article-extraction-benchmark';

const USAGE = `usage: node scripts/bench/extraction-quality.mjs --data DIR [options]

  --data DIR               a checkout of the benchmark: ${FETCH_HINT}
  --extractor NAME         readability (default): @mozilla/readability on linkedom, its textContent
                           defuddle: defuddle on linkedom, the text of its content
                           markdown: pageMarkdown(html, url).text from --module
  --module PATH            the module exporting pageMarkdown (default: dist/markdown/index.js, after npm run build)
  --predictions FILE       score an output JSON in the benchmark's format (e.g. DIR/output/readability_js.json)
                           instead of running an extractor
  --write-predictions FILE write what the extractor returned in the benchmark's format (for its evaluate.py)
  --limit N                only the first N pages (sorted by id)
  --n-bootstrap N          bootstrap resamples for the std (default 1000, as evaluate.py)
  --seed N                 bootstrap seed (default 1)
  --json                   one JSON object: the scores and a row per page
`;

class UsageError extends Error {}

function parseOptions(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        data: { type: 'string' },
        extractor: { type: 'string', default: 'readability' },
        module: { type: 'string' },
        predictions: { type: 'string' },
        'write-predictions': { type: 'string' },
        limit: { type: 'string' },
        'n-bootstrap': { type: 'string', default: '1000' },
        seed: { type: 'string', default: '1' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (err) {
    throw new UsageError(`${err.message} (see --help)`);
  }
  const o = parsed.values;
  if (o.help) return { help: true };
  if (!o.data) throw new UsageError(`--data DIR is required: a checkout of the benchmark (${FETCH_HINT})`);
  const data = resolve(o.data);
  if (!existsSync(join(data, 'ground-truth.json')) || !existsSync(join(data, 'html'))) {
    throw new UsageError(`${data} has no ground-truth.json and html/: pass a checkout of the benchmark (${FETCH_HINT})`);
  }
  if (!['readability', 'defuddle', 'markdown'].includes(o.extractor)) {
    throw new UsageError(`--extractor must be readability, defuddle or markdown, not ${JSON.stringify(o.extractor)}`);
  }
  const int = (name, value, min) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}, not ${JSON.stringify(value)}`);
    return n;
  };
  return {
    data,
    extractor: o.predictions ? 'predictions' : o.extractor,
    module: resolve(o.module ?? DEFAULT_MODULE),
    predictions: o.predictions ? resolve(o.predictions) : undefined,
    writePredictions: o['write-predictions'],
    limit: o.limit === undefined ? Infinity : int('limit', o.limit, 1),
    nBootstrap: int('n-bootstrap', o['n-bootstrap'], 0),
    seed: int('seed', o.seed, 0),
    json: o.json,
  };
}

/** @returns {Promise<{ name: string, version: string, extract: (html: string) => Promise<string> | string }>} */
async function loadExtractor(opts) {
  const require = createRequire(import.meta.url);
  // Some packages do not export their package.json: walk up from their entry point instead.
  const version = (pkg) => {
    try {
      for (let dir = dirname(require.resolve(pkg)); dir !== dirname(dir); dir = dirname(dir)) {
        const file = join(dir, 'package.json');
        if (existsSync(file)) {
          const json = JSON.parse(readFileSync(file, 'utf8'));
          if (json.name === pkg) return json.version;
        }
      }
    } catch {}
    return '?';
  };
  const missing = (pkg) => new UsageError(`${pkg} is not installed: run npm install in the repository (it is a devDependency)`);
  const importPkg = async (pkg) => {
    try {
      return await import(pkg);
    } catch (err) {
      if (err?.code === 'ERR_MODULE_NOT_FOUND') throw missing(pkg);
      throw err;
    }
  };
  const { parseHTML } = await importPkg('linkedom');
  if (opts.extractor === 'readability') {
    const { Readability } = await importPkg('@mozilla/readability');
    return {
      name: 'readability',
      version: `@mozilla/readability ${version('@mozilla/readability')}, linkedom ${version('linkedom')}`,
      extract(html) {
        const { document } = parseHTML(html);
        return new Readability(document).parse()?.textContent ?? '';
      },
    };
  }
  if (opts.extractor === 'defuddle') {
    const { Defuddle } = await importPkg('defuddle/node');
    return {
      name: 'defuddle',
      version: `defuddle ${version('defuddle')}, linkedom ${version('linkedom')}`,
      async extract(html) {
        const { document } = parseHTML(html);
        // Defuddle logs each page's malformed JSON-LD with a stack trace; that is the page's fault, not a failure.
        const logError = console.error;
        console.error = () => {};
        let result;
        try {
          result = await Defuddle(document, PAGE_URL);
        } finally {
          console.error = logError;
        }
        // Its content is HTML; its text is that HTML's textContent, as Readability's is.
        return parseHTML(`<!doctype html><html><body>${result.content ?? ''}</body></html>`).document.body.textContent ?? '';
      },
    };
  }
  if (!existsSync(opts.module)) {
    throw new UsageError(`${opts.module} does not exist: run npm run build, or pass --module PATH exporting pageMarkdown`);
  }
  let mod;
  try {
    mod = await import(pathToFileURL(opts.module).href);
  } catch (err) {
    throw new UsageError(`${opts.module} could not be loaded: ${String(err?.message ?? err).split('\n')[0]}`);
  }
  if (typeof mod.pageMarkdown !== 'function') throw new UsageError(`${opts.module} does not export pageMarkdown(html, url)`);
  return {
    name: 'markdown',
    version: opts.module,
    async extract(html) {
      return (await mod.pageMarkdown(html, PAGE_URL)).text ?? '';
    },
  };
}

function loadPredictions(file) {
  // evaluate.py's load_prediction: either {id: {articleBody}} or {version, output: {id: {articleBody}}}.
  if (!existsSync(file)) throw new UsageError(`${file} does not exist`);
  let data;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`${file} is not JSON: ${err.message}`);
  }
  const wrapped = data && typeof data.output === 'object' && Object.keys(data).every((k) => k === 'version' || k === 'output');
  return { output: wrapped ? data.output : data, version: wrapped ? String(data.version ?? '') : '' };
}

async function main(argv) {
  const opts = parseOptions(argv);
  if (opts.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const truth = JSON.parse(readFileSync(join(opts.data, 'ground-truth.json'), 'utf8'));
  const ids = Object.keys(truth).sort().slice(0, opts.limit);
  const htmlFiles = new Set(readdirSync(join(opts.data, 'html')));

  let name;
  let version;
  const pages = [];
  if (opts.predictions) {
    const loaded = loadPredictions(opts.predictions);
    name = opts.predictions;
    version = loaded.version;
    for (const id of ids) {
      if (!(id in loaded.output)) throw new UsageError(`${opts.predictions} has no prediction for ${id}`);
      pages.push({ id, truth: truth[id].articleBody ?? '', pred: loaded.output[id].articleBody ?? '', ms: null, error: null });
    }
  } else {
    const extractor = await loadExtractor(opts);
    name = extractor.name;
    version = extractor.version;
    for (const id of ids) {
      const file = `${id}.html.gz`;
      if (!htmlFiles.has(file)) throw new UsageError(`${join(opts.data, 'html', file)} is missing: is the checkout complete?`);
      // The benchmark's pages are gzip-compressed UTF-8.
      const html = gunzipSync(readFileSync(join(opts.data, 'html', file))).toString('utf8');
      const started = performance.now();
      let pred = '';
      let error = null;
      try {
        pred = await extractor.extract(html);
      } catch (err) {
        // A page the extractor cannot handle scores as an empty prediction, not a stopped run.
        error = String(err?.message ?? err).split('\n')[0];
      }
      pages.push({ id, truth: truth[id].articleBody ?? '', pred, ms: performance.now() - started, error });
    }
  }

  if (opts.writePredictions) {
    const output = Object.fromEntries(pages.map((p) => [p.id, { articleBody: p.pred }]));
    writeFileSync(opts.writePredictions, JSON.stringify({ version, output }, null, 2));
  }

  const m = evaluate(pages, { nBootstrap: opts.nBootstrap, seed: opts.seed });
  const rows = pages.map((p, i) => {
    const [tp, fp, fn] = m.rows[i];
    return {
      id: p.id,
      url: truth[p.id].url ?? null,
      precision: tp + fp > 0 ? precisionScore(tp, fp, fn) : null,
      recall: tp + fn > 0 ? recallScore(tp, fp, fn) : null,
      tp,
      fp,
      fn,
      exact: m.accuracies[i] === 1,
      predChars: p.pred.length,
      ms: p.ms === null ? null : Math.round(p.ms * 10) / 10,
      error: p.error,
    };
  });
  const errors = rows.filter((r) => r.error).length;
  const totalMs = pages.reduce((a, p) => a + (p.ms ?? 0), 0);
  const summary = {
    extractor: name,
    version,
    pages: pages.length,
    errors,
    f1: m.f1,
    f1_std: m.f1_std,
    precision: m.precision,
    precision_std: m.precision_std,
    recall: m.recall,
    recall_std: m.recall_std,
    accuracy: m.accuracy,
    accuracy_std: m.accuracy_std,
    ms_per_page: opts.predictions ? null : totalMs / pages.length,
  };
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ ...summary, rows }, null, 2)}\n`);
    return 0;
  }
  const f = (x, s) => `${x.toFixed(3)} ± ${s.toFixed(3)}`;
  const lines = [
    `${'extractor'.padEnd(12)} ${'F1'.padEnd(13)}  ${'precision'.padEnd(13)}  ${'recall'.padEnd(13)}  ${'accuracy'.padEnd(13)}  pages`,
    `${name.padEnd(12)} ${f(m.f1, m.f1_std)}  ${f(m.precision, m.precision_std)}  ${f(m.recall, m.recall_std)}  ${f(m.accuracy, m.accuracy_std)}  ${pages.length}`,
    `version: ${version || '-'}`,
  ];
  if (summary.ms_per_page !== null) lines.push(`${summary.ms_per_page.toFixed(1)} ms per page; ${errors} page(s) failed (scored as empty)`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    if (err instanceof UsageError) {
      process.stderr.write(`extraction-quality: ${err.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`extraction-quality: ${err?.stack ?? err}\n`);
      process.exitCode = 1;
    }
  },
);
