import { describeFrontierContract } from '../support/frontier-contract.js';
import { MemoryFrontier } from '../support/memory-frontier.js';

const LEASE_MS = 1_000;

describeFrontierContract('the in-memory frontier', {
  // A stand-in for a shared frontier's leases: it keeps no skipped URLs, bodies or links, and judges no limits.
  capabilities: {
    expiringLeases: true,
    keepsSkipped: false,
    storesPages: false,
    limits: false,
    robotsRequeue: false,
    distinctLeases: true,
    pacesAcrossWorkers: false,
  },
  async make() {
    let now = 1_000_000;
    const memory = new MemoryFrontier(LEASE_MS, () => now);
    return {
      frontier: memory,
      sink: memory,
      async seed(urls) {
        for (const url of urls) memory.add({ url, key: url, origin: new URL(url).origin });
      },
      async row(key) {
        const entry = memory.entries.get(key);
        return entry && { state: entry.state, depth: entry.depth, code: null };
      },
      pages: async () => [],
      links: async () => [],
      second: async () => ({ frontier: memory, sink: memory }),
      async expireLeases() {
        now += LEASE_MS + 1;
      },
      async close() {},
    };
  },
});
