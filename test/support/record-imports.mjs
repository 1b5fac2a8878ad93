// Preloaded with `node --import` into a CLI child process: appends every module URL it resolves to
// the file named by CRAWLITE_IMPORT_LOG, one per line, so a test can see what a command loaded.
import { register } from 'node:module';

register('./record-imports-hooks.mjs', import.meta.url, { data: { log: process.env.CRAWLITE_IMPORT_LOG } });
