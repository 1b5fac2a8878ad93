// The control room's door: how another process steers a running crawl through its archive (ControlClient
// appends requests and reads how the crawl stands; a request is checked by src/pipeline/control-request.ts), and
// what serve's live page reads of it (LiveView, a bounded snapshot). The crawl's own side (applying requests,
// writing its live row) is reached through crawl-state's LockedArchive.
export {
  ControlClient,
  ControlUnavailableError,
  LIVE_STALE_MS,
  type ControlStatus,
  type LiveRow,
  type RequestRow,
} from './control-client.js';
export type { StoredControls } from './control-settings.js';
export { PREVIEW_MATCHES, PREVIEW_SCAN_ROWS, type ExclusionPreview } from './exclusion-preview.js';
export { LiveView, type LiveCrawl, type LiveSnapshot, type LiveState } from './live-view.js';
export { requestControl } from './request-control.js';
