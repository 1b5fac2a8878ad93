import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { testOwner } from './archive.js';

/** The command as installed: the bundle the build makes (scripts/build/bundle.mjs), which package.json's bin names. */
export const BIN = fileURLToPath(new URL('../../dist/bundle/crawlite.js', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output; `interrupt` fires the registered Ctrl-C handler. */
export async function runCli(
  argv: string[],
  options: {
    onStart?: (interrupt: () => void) => void;
    statusStream?: { write(text: string): unknown; columns?: number };
    parseOnly?: boolean;
  } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  let handler: (() => void) | undefined;
  const code = await main(
    argv,
    {
      stdout: (text) => {
        stdout += text;
      },
      drain: () => Promise.resolve(true),
      stderr: (text) => {
        stderr += text;
      },
      isTTY: options.statusStream !== undefined,
      ...(options.statusStream ? { statusStream: options.statusStream } : {}),
      onInterrupt(h) {
        handler = h;
        options.onStart?.(() => handler?.());
        return () => {
          handler = undefined;
        };
      },
      owner: testOwner,
      version: '0.0.0-test',
    },
    { parseOnly: options.parseOnly === true },
  );
  return { code, stdout, stderr };
}

/** Where the CLI runs: its working directory, and variables set on top of this process's environment. */
export interface CliPlace {
  cwd?: string;
  env?: Record<string, string>;
}

/** Starts the built CLI as a real child process. */
export function spawnCli(argv: string[], options: CliPlace = {}): ChildProcess & { output: () => CliRun; exited: Promise<CliRun> } {
  const child = spawn(process.execPath, [BIN, ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<CliRun>((resolve) => {
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 + 9 : -1), stdout, stderr }));
  });
  return Object.assign(child, { output: () => ({ code: -1, stdout, stderr }), exited });
}

/** Runs the built CLI to completion as a real process. */
export function execCli(argv: string[], options: CliPlace = {}): Promise<CliRun> {
  return spawnCli(argv, options).exited;
}
