import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BIN, type CliRun } from './cli.js';

const PRELOAD = fileURLToPath(new URL('./report-peak-rss.mjs', import.meta.url));

/** Runs the built CLI as a real process and reads its peak resident memory (all its threads; not its children). */
export function runMeasured(argv: string[], peakFile: string): Promise<CliRun & { peak: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', PRELOAD, BIN, ...argv], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CRAWLITE_PEAK_RSS_FILE: peakFile },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, peak: Number(readFileSync(peakFile, 'utf8')) }));
  });
}
