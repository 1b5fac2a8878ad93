import type { ChildProcess } from 'node:child_process';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { request } from 'node:http';
import { spawnCli, type CliRun } from './cli.js';
import { waitFor, within } from './wait.js';

export interface ServeProcess {
  child: ChildProcess & { exited: Promise<CliRun>; output: () => CliRun };
  /** The UI's URL, the first line `crawlite serve` prints. */
  url: string;
}

/** The first line a spawned crawlite command prints (the address a server listens at), within 10 s. */
export function firstLineOf(child: ServeProcess['child'], command: string): Promise<string> {
  return within(
    new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const newline = seen.indexOf('\n');
        if (newline >= 0) resolve(seen.slice(0, newline));
      });
      child.on('close', () => reject(new Error(`${command} ended before printing its URL: ${child.output().stderr}`)));
    }),
    10_000,
    () => `${command} printed no URL: ${JSON.stringify(child.output())}`,
    () => child.kill('SIGKILL'),
  );
}

/** Starts the built `crawlite serve` and waits for the first line of its output, the UI's URL. */
export async function spawnServe(argv: string[]): Promise<ServeProcess> {
  const child = spawnCli(['serve', ...argv]);
  const url = await firstLineOf(child, 'serve');
  return { child, url };
}

export interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request with node:http, the path sent exactly as given (fetch would resolve
 * `/assets/../x` before sending it) and any Host header, with a body if given.
 */
export function get(
  base: string,
  path: string,
  options: { method?: string; host?: string; range?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Fetched> {
  const origin = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: origin.hostname,
        port: origin.port,
        path,
        method: options.method ?? 'GET',
        headers: {
          ...options.headers,
          ...(options.host ? { host: options.host } : {}),
          ...(options.range ? { range: options.range } : {}),
        },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** `crawlite serve <db> --port 0 [flags]` (flags may name a --port) with both its origins: the UI's (first line) and the replay origin's (the next). */
export async function startServe(
  db: string,
  flags: string[] = [],
): Promise<{ ui: string; replay: string; pid: number; stop: () => Promise<CliRun> }> {
  const { child, url } = await spawnServe([db, ...(flags.includes('--port') ? [] : ['--port', '0']), ...flags]);
  const replayLine = () => /replay origin: (http:\/\/[^\s/]+)/.exec(child.output().stdout)?.[1];
  await waitFor(
    'serve to print its replay origin',
    () => replayLine() !== undefined,
    10_000,
    () => child.output().stdout,
  );
  return {
    ui: url,
    replay: replayLine()!,
    pid: child.pid!,
    stop: () => {
      child.kill('SIGINT');
      return child.exited;
    },
  };
}

/** A port free on 127.0.0.1 a moment ago: listened on, then released, for a command told to listen there. */
export function freePort(): Promise<number> {
  const server = createNetServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
