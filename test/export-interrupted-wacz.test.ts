import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './support/archive.js';
import { bodiesArchive } from './support/bodies-archive.js';
import { execCli, spawnCli } from './support/cli.js';
import { killAll } from './support/process-tree.js';
import { waitFor } from './support/wait.js';

// A WACZ export stopped part-way leaves no file behind: not the WACZ, and none
// of the hidden temporary files it writes (its WARC, the WARC's sort chunks, its
// index and its pages.jsonl). Ctrl-C or SIGTERM removes them before the exit; a
// kill -9 cannot, and the next export of the same WACZ removes what it left.
//
// The kill lands mid-export by construction, not by timing: the child is frozen
// (SIGSTOP) once it is seen in the phase asked for (writing its WARC and pages,
// or zipping them into the WACZ), seen to have committed nothing, and only then
// signalled and let go.

const tmp = tempDir();
const db = tmp.path('big.sqlite');
const children: ReturnType<typeof spawnCli>[] = [];

beforeAll(() => {
  // About 60 MB of pages: the export takes long enough to be caught writing.
  bodiesArchive(db, 1_500, 40_000);
});

afterAll(() => {
  killAll(children);
  tmp.cleanup();
});

const partialsIn = (dir: string): string[] =>
  readdirSync(dir).filter((name) => name.endsWith('.partial') || /\.partial\.sort-\d+$/.test(name));

/** The two phases of a WACZ export: its WARC and pages written side by side, then all its parts zipped. */
type Phase = 'warc' | 'zip';

/** Starts a WACZ export into a fresh directory and freezes it in `phase`; returns it frozen. */
async function exportCaught(name: string, phase: Phase): Promise<{ child: ReturnType<typeof spawnCli>; out: string }> {
  const out = tmp.path(name);
  mkdirSync(out);
  const child = spawnCli(['export', db, '--wacz', `${out}/site.wacz`]);
  children.push(child);
  const warcPartial = () => readdirSync(out).find((file) => /^\.site\.wacz\.warc\.gz\.[0-9a-f]{8}\.partial$/.test(file));
  const pagesPartial = () => readdirSync(out).find((file) => /^\.site\.wacz\.pages\.jsonl\.[0-9a-f]{8}\.partial$/.test(file));
  const waczPartial = () => readdirSync(out).find((file) => /^\.site\.wacz\.[0-9a-f]{8}\.partial$/.test(file));
  await waitFor(
    phase === 'warc' ? 'the export writing its WARC and its pages' : 'the export zipping its parts',
    () => {
      if (child.exitCode !== null) throw new Error(`the export ended before it was caught: ${child.output().stderr}`);
      if (phase === 'zip') return waczPartial() !== undefined;
      const warc = warcPartial();
      return pagesPartial() !== undefined && warc !== undefined && (statSync(`${out}/${warc}`, { throwIfNoEntry: false })?.size ?? 0) > 0;
    },
    60_000,
  );
  child.kill('SIGSTOP');
  // Frozen with nothing committed: whatever it does after the signal, it is an export not yet done.
  expect(existsSync(`${out}/site.wacz`)).toBe(false);
  expect(pagesPartial()).toBeDefined();
  return { child, out };
}

for (const [signal, phase] of [
  ['SIGINT', 'warc'],
  ['SIGTERM', 'warc'],
  ['SIGINT', 'zip'],
] as const) {
  it(`${signal} while the export ${phase === 'warc' ? 'writes its WARC and pages' : 'zips its parts'}: exit 130 and no file left, temporary ones included`, async () => {
    const { child, out } = await exportCaught(`${signal}-${phase}`, phase);
    child.kill(signal);
    child.kill('SIGCONT');
    const run = await child.exited;
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).toContain('export interrupted; no output was written');
    expect(readdirSync(out)).toEqual([]);
  });
}

it('after kill -9 mid-export, the next export of the same WACZ removes what it left and writes the WACZ', async () => {
  const { child, out } = await exportCaught('killed', 'warc');
  child.kill('SIGKILL');
  await child.exited;
  const left = partialsIn(out);
  // Nothing could run: the WARC's and the pages' temporary files are still there.
  expect(left.filter((name) => name.startsWith('.site.wacz.warc.gz.') || name.startsWith('.site.wacz.pages.jsonl.'))).toHaveLength(2);
  expect(readdirSync(out).filter((name) => !left.includes(name))).toEqual([]);

  const again = await execCli(['export', db, '--wacz', `${out}/site.wacz`, '-q']);
  expect(again.code, again.stderr).toBe(0);
  expect(readdirSync(out)).toEqual(['site.wacz']);
});
