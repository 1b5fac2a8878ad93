/**
 * The Host values a server on the loopback interface answers to at `port`: the names a browser or a client on
 * this machine uses for it, and nothing a page of another site could make a browser send (DNS rebinding).
 */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}
