/** The URL toolkit: pure normalisation, deduplication keys and fast link resolution. Nothing here knows about crawling or storage. */
export { normalizeUrl, withDefaultScheme, type Normalized, type NormalizedUrl } from './normalize-url.js';
export { urlKey } from './url-key.js';
export { surt } from './surt.js';
export { isRouteFragment, withFragment, documentOf } from './route-fragment.js';
export { LinkResolver, fastNormalize } from './fast-resolve.js';
