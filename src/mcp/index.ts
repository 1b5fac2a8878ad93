// The MCP room's door: an archive's tools for a model's client, over stdio or Streamable HTTP on loopback.
export { TOOL_NAMES } from './archive-server.js';
export { MCP_PATH, serveMcpHttp, type McpHttp } from './serve-http.js';
export { serveMcpStdio, type McpStdio } from './serve-stdio.js';
