import { readFileSync } from 'node:fs';

/** This package's version, for the default User-Agent `crawlite/<version>`. */
export const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
