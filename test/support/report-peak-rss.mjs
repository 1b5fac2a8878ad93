// Preloaded with `node --import` into a CLI child process: when it exits, writes its peak resident
// memory in bytes (getrusage's ru_maxrss: every thread, the parse threads included) to the file
// named by CRAWLITE_PEAK_RSS_FILE, so a test reads the exact peak instead of sampling /proc.
import { writeFileSync } from 'node:fs';

const file = process.env.CRAWLITE_PEAK_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS * 1024)));
