import { createSocket } from 'node:dgram';
import { createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * Listeners a crawled page must never reach: a TCP port that counts every connection opened to it
 * (an HTTP request, a WebSocket handshake, a preconnect, a probe alike) with the first bytes each
 * sent, and a UDP port that counts datagrams (WebRTC's STUN, QUIC). They stand for what lies outside
 * a crawl on the same machine: a database, another service, a metadata endpoint.
 */
export interface Tripwires {
  tcpPort: number;
  udpPort: number;
  /** Connections opened to the TCP port, each with what it sent first (may be ''). */
  connections: string[];
  datagrams: number;
  close(): Promise<void>;
}

export async function startTripwires(): Promise<Tripwires> {
  const connections: string[] = [];
  const sockets = new Set<Socket>();
  const tcp = createServer((socket) => {
    sockets.add(socket);
    const index = connections.push('') - 1;
    socket.on('data', (chunk: Buffer) => {
      if (connections[index]!.length < 200) connections[index] += chunk.toString('latin1').slice(0, 200);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const udp = createSocket('udp4');
  const tripped = { datagrams: 0 };
  udp.on('message', () => {
    tripped.datagrams += 1;
  });
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  return {
    tcpPort: (tcp.address() as AddressInfo).port,
    udpPort: udp.address().port,
    connections,
    get datagrams() {
      return tripped.datagrams;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    },
  };
}
