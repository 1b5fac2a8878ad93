import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CommitCuttingProxy {
  /** The port to give a worker in place of the server's. */
  port: number;
  /** Whether the cut has happened (and the worker's connections are refused since). */
  readonly cut: boolean;
  /** Lets the worker through again: new connections reach the server. */
  heal(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of PostgreSQL for one worker, which cuts it off at the worst moment: when the
 * worker sends COMMIT for a transaction that ran `statement` (a named prepared statement) with
 * `marker` among its parameters. That COMMIT never reaches the server, every connection of the worker
 * is closed, and new ones are closed as they come until `heal`. What the worker did between its last
 * statement and that COMMIT (its shard's commit) is done; the frontier's part is rolled back.
 * The simple query protocol's BEGIN and COMMIT are recognised on the wire ('Q', length, text, NUL).
 */
export async function startCommitCuttingProxy(serverPort: number, statement: string, marker: string): Promise<CommitCuttingProxy> {
  const sockets = new Set<Socket>();
  let cut = false;
  let healed = false;
  const blocked = () => cut && !healed;

  const server = createServer((client) => {
    if (blocked()) return void client.destroy();
    const upstream = connect(serverPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    const forget = () => (sockets.delete(client), sockets.delete(upstream));
    client.on('close', () => (upstream.destroy(), forget()));
    upstream.on('close', () => (client.destroy(), forget()));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    // What the worker sent since its transaction began, as latin1 text (the protocol's strings are plain bytes).
    let sinceBegin = '';
    client.on('data', (chunk: Buffer) => {
      if (blocked()) return;
      const text = chunk.toString('latin1');
      if (!healed && text.includes('COMMIT\0') && sinceBegin.includes(statement) && sinceBegin.includes(marker)) {
        cut = true;
        for (const socket of sockets) socket.destroy();
        return;
      }
      if (text.includes('BEGIN\0')) sinceBegin = text.slice(text.lastIndexOf('BEGIN\0'));
      else sinceBegin += text;
      upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get cut() {
      return cut;
    },
    heal: () => {
      healed = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
