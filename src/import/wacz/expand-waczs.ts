import type { WarcInput } from '../warc-source.js';
import { isZip, openWacz, type Wacz } from './open-wacz.js';

/**
 * The WARCs to read: each WARC file, and in place of each WACZ its WARCs. Every WACZ is opened and
 * checked here, so a hostile or damaged one is refused before the archive is touched.
 */
export async function expandWaczs(files: string[]): Promise<{ inputs: WarcInput[]; waczs: Wacz[] }> {
  const inputs: WarcInput[] = [];
  const waczs: Wacz[] = [];
  for (const file of files) {
    if (!(await isZip(file))) {
      inputs.push(file);
      continue;
    }
    const wacz = await openWacz(file);
    waczs.push(wacz);
    inputs.push(...wacz.warcs);
  }
  return { inputs, waczs };
}
