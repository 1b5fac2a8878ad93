// The control room's door: how another process steers a running crawl through its archive (ControlClient
// appends requests and reads how the crawl stands; a request is checked by src/pipeline/control-request.ts), and
// what serve's live page reads of it (a bounded snapshot, read in the query room's process). The crawl's own side
// (applying requests, writing its live row) is reached through crawl-state's LockedArchive.
export { ControlClient, LIVE_STALE_MS } from './control-client.js';
export { ControlUnavailableError } from './control-errors.js';
export type { ControlStatus, LiveRow, RequestRow, StoredControls } from './control-status.js';
export { PREVIEW_MATCHES, PREVIEW_SCAN_ROWS, type ExclusionPreview } from './exclusion-preview.js';
export type { LiveCrawl, LiveSnapshot, LiveState } from './live-view.js';
export { requestControl } from './request-control.js';
