// What the replay origin serves: archived pages, rewritten to stay on it (src/serve/replay).
export { createReplayHandler, type ReplayContext } from './replay/replay-handler.js';
