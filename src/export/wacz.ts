import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';

// WACZ 1.1.1, laid out as py-wacz writes it: the WARC stored (not deflated,
// so a replay reads records by offset straight out of the ZIP), the CDXJ
// index, pages.jsonl, and datapackage.json listing each with its SHA-256,
// whose own hash is in datapackage-digest.json.

export const WACZ_WARC_NAME = 'data.warc.gz';

export interface WaczParts {
  /** The files to put in, by path on disk. */
  warc: string;
  index: string;
  pages: string;
}

export interface WaczMetadata {
  title: string;
  description?: string;
  /** e.g. 'crawlite 1.2.3'. */
  software: string;
  created: Date;
}

interface Resource {
  name: string;
  path: string;
  hash: string;
  bytes: number;
}

async function sha256File(path: string, signal: AbortSignal | undefined): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash, signal ? { signal } : {});
  return `sha256:${hash.digest('hex')}`;
}

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The WACZ's entries in order; the WARC is stored, the text files deflated. */
const ENTRIES = [
  { part: 'warc', path: `archive/${WACZ_WARC_NAME}`, compress: false },
  { part: 'index', path: 'indexes/index.cdxj', compress: true },
  { part: 'pages', path: 'pages/pages.jsonl', compress: true },
] as const;

/**
 * Writes the WACZ to `path` (a new file). Hashing and zipping its parts take a while for a large WARC:
 * `signal` stops them, and once this rejects the file is closed, so the caller may remove it.
 */
export async function writeWacz(path: string, parts: WaczParts, metadata: WaczMetadata, signal?: AbortSignal): Promise<void> {
  const zip = new yazl.ZipFile();
  const mtime = metadata.created;
  const resources: Resource[] = [];
  for (const entry of ENTRIES) {
    const file = parts[entry.part];
    zip.addFile(file, entry.path, { compress: entry.compress, mtime });
    resources.push({
      name: entry.path.slice(entry.path.lastIndexOf('/') + 1),
      path: entry.path,
      hash: await sha256File(file, signal),
      bytes: statSync(file).size,
    });
  }
  const datapackage = Buffer.from(
    JSON.stringify(
      {
        profile: 'data-package',
        resources,
        title: metadata.title,
        ...(metadata.description ? { description: metadata.description } : {}),
        created: `${metadata.created.toISOString().slice(0, 19)}Z`,
        wacz_version: '1.1.1',
        software: metadata.software,
      },
      null,
      2,
    ),
  );
  zip.addBuffer(datapackage, 'datapackage.json', { mtime });
  zip.addBuffer(Buffer.from(JSON.stringify({ path: 'datapackage.json', hash: sha256(datapackage) }, null, 2)), 'datapackage-digest.json', {
    mtime,
  });
  zip.end();
  const out = createWriteStream(path, { flags: 'wx' });
  try {
    await pipeline(zip.outputStream, out, signal ? { signal } : {});
  } catch (error) {
    // Opened asynchronously: removed before its open ends, the file would be made again.
    if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
    throw error;
  }
}
