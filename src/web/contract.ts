/**
 * The web room's contract: the settings `web_fetch` and `web_search` run under (config `web:`,
 * resolved with their defaults by the composer), the search providers Loom speaks to, and the
 * error codes a refused or failed call carries. Types and constants only.
 */
import { LoomError } from '../base/errors.js';

export const SEARCH_PROVIDERS = ['brave', 'tavily', 'searxng', 'exa'] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

/** Config `web.search`. */
export interface SearchSettings {
  provider: SearchProviderName;
  /** The environment variable that holds the API key; searxng takes none. */
  apiKeyEnv?: string;
  /** Overrides the provider's endpoint (a self-hosted SearXNG, a proxy, a test's fake). */
  url?: string;
}

/** What a permission rule says of a host a redirect leads to (the first matching rule's action). */
export type HostVerdict = 'allow' | 'deny' | 'ask' | undefined;

export interface WebSettings {
  /** Bytes of a response body read; the rest is not downloaded. Default 5 MB. */
  maxBytes: number;
  /** How long one fetch (all its redirects) or search may take. Default 30000 ms. */
  timeoutMs: number;
  /** Connect to loopback, private and link-local addresses too. Default false. */
  allowPrivate: boolean;
  /** The model that condenses a page for `prompt`; default the calling agent's. */
  model?: string;
  /** Characters of a result kept (head and tail, as bash output). Default 30000. */
  outputLimit: number;
  search?: SearchSettings;
}

export const DEFAULT_WEB_SETTINGS: Omit<WebSettings, 'search' | 'model'> = {
  maxBytes: 5 * 1024 * 1024,
  timeoutMs: 30_000,
  allowPrivate: false,
  outputLimit: 30_000,
};

/** Most redirects one `web_fetch` follows. */
export const MAX_REDIRECTS = 10;

/**
 * `WEB_REFUSED`: the URL, its address or a redirect is not allowed (scheme, private address,
 * permission rule); `WEB_FAILED`: the server could not be reached, answered with an error, or
 * the time ran out; `WEB_SEARCH_FAILED`: the search provider failed or answered in a shape Loom
 * does not know.
 */
export type WebErrorCode = 'WEB_REFUSED' | 'WEB_FAILED' | 'WEB_SEARCH_FAILED';

declare module '../base/errors.js' {
  interface LoomErrorCodeMap extends Record<WebErrorCode, true> {}
}

export class WebError extends LoomError<WebErrorCode> {}
