import { domainToASCII } from 'node:url';

// The host forms Python's surt (GoogleURLCanonicalizer) turns a host into: an IPv4 address however it
// was written, and an internationalised name in ASCII, as Python's own functions give them.

/**
 * A host that is a number (`3232235777`) or dotted digits (`127.1`, octal `0177.0.0.1`) as inet_aton reads it;
 * undefined for any other host, or digits inet_aton refuses (`256.1.1.1`).
 */
export function ipv4(host: string): string | undefined {
  if (/^[0-9]+$/.test(host)) return dotted(BigInt(host) & 0xffffffffn);
  if (!/^[1-9][0-9]*(\.[0-9]+){0,3}$/.test(host) && !/^0[0-7]*(\.[0-7]+){0,3}$/.test(host)) return undefined;
  const parts: bigint[] = [];
  for (const part of host.split('.')) {
    if (/^0[0-7]*$/.test(part)) parts.push(BigInt(`0o${part}`));
    else if (/^[1-9][0-9]*$/.test(part)) parts.push(BigInt(part));
    else return undefined;
  }
  // inet_aton: each part but the last is a byte; the last fills the bytes left.
  const lastBits = 8n * BigInt(5 - parts.length);
  if (parts.slice(0, -1).some((part) => part > 0xffn) || parts.at(-1)! >= 1n << lastBits) return undefined;
  let value = 0n;
  parts.slice(0, -1).forEach((part, i) => (value |= part << BigInt(24 - 8 * i)));
  return dotted(value | parts.at(-1)!);
}

const dotted = (value: bigint): string => [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');

/**
 * Python's `host.decode('utf-8', 'ignore').encode('idna')` (IDNA 2003: nameprep's case folding and NFKC, then
 * punycode per label); undefined where it raises (an empty or over-long label), which leaves the host's bytes.
 */
export function idna(host: string): string | undefined {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.from(host, 'latin1')).replaceAll('\ufffd', '');
  const labels = text.split(/[.\u3002\uff0e\uff61]/);
  const out: string[] = [];
  for (const [i, label] of labels.entries()) {
    if (label === '' && i === labels.length - 1 && i > 0) {
      out.push('');
      continue;
    }
    // An ASCII label is kept as it is (not lower-cased) by ToASCII.
    const ascii = /^[\x00-\x7f]*$/.test(label) ? label : domainToASCII(label.normalize('NFKC').toLowerCase().replaceAll('ß', 'ss'));
    if (ascii === '' || ascii.length > 63) return undefined;
    out.push(ascii);
  }
  return out.join('.');
}
