export { formatBytes } from '../../format-bytes.js';

export const formatCount = (n: number): string => n.toLocaleString('en-US');

/** The UI's link to a capture's page. */
export const captureHref = (url: string): string => `/capture?url=${encodeURIComponent(url)}`;
