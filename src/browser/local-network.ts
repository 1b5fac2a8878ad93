import { isIP } from 'node:net';
import type { RenderJob } from '../pipeline/renderer.js';

/** Loopback, private, link-local (169.254.0.0/16: cloud metadata), unspecified, CGNAT and multicast addresses, and `localhost` names. */
export function isLocalAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (ip === 'localhost' || ip.endsWith('.localhost')) return true;
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return (
      a === 127 ||
      a === 10 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      a === 0 ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  if (isIP(ip) === 6) {
    if (ip === '::1' || ip === '::') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1];
    if (mapped) return isLocalAddress(mapped);
    return /^f[cd]/.test(ip) || /^fe[89ab]/.test(ip) || /^ff/.test(ip);
  }
  return false;
}

/**
 * Whether the page came from a loopback or private address (the address the crawl connected to,
 * else its host). Chromium takes a document it is handed for a public one, and a public page may
 * not reach local addresses (Local Network Access); a page that is itself local may, as it would
 * in a browser that had loaded it.
 */
export function servedFromLocalNetwork(job: RenderJob): boolean {
  return isLocalAddress(job.document.wire?.remoteIp ?? new URL(job.url).hostname);
}
