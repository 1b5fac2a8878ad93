import { createServer, type AddressInfo, type Socket } from 'node:net';

/** A server on raw sockets that answers each path with fixed bytes, so headers can be what no HTTP library would send. */
export interface RawHttpServer {
  url: string;
  /** Request targets as they arrived on the wire, in order. */
  requests: string[];
  /** Each request's head as it arrived (request line, headers, blank line), Latin-1, by target. */
  heads: Map<string, string>;
  close(): Promise<void>;
}

/** Answers `table[path]` verbatim (then closes the connection), anything else with a 404. */
export async function startRawServer(table: Record<string, Buffer>): Promise<RawHttpServer> {
  const requests: string[] = [];
  const heads = new Map<string, string>();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let head = '';
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n') || head.length > 64 * 1024) return;
      const target = head.split(' ')[1] ?? '';
      requests.push(target);
      heads.set(target, head.slice(0, head.indexOf('\r\n\r\n') + 4));
      socket.end(table[target] ?? Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    heads,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
