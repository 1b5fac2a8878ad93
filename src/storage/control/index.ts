// The control room's door: what other processes read of a running crawl, and the requests they append for it to apply.
export { PREVIEW_MATCHES, PREVIEW_SCAN_ROWS, type ExclusionPreview } from './exclusion-preview.js';
export { LIVE_STALE_MS, LiveView, type LiveCrawl, type LiveSnapshot, type LiveState } from './live-view.js';
export { ControlUnsupportedError, requestControl, type ControlCommand, type ControlRequest } from './request-control.js';
