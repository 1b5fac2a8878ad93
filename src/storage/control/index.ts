// The control room's door: how another process steers a running crawl through its archive (ControlClient
// appends requests and reads how the crawl stands), and the checks of a request, shared by both sides. The
// crawl's own side (applying requests, writing its live row) is reached through crawl-state's LockedArchive.
export { checkControlRequest, CONTROL_COMMANDS, type ControlCommand, type ControlRequest } from './check-control.js';
export {
  ControlClient,
  ControlUnavailableError,
  LIVE_STALE_MS,
  type ControlStatus,
  type LiveRow,
  type RequestRow,
} from './control-client.js';
export type { StoredControls } from './control-settings.js';
