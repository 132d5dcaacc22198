/**
 * The web search APIs `web_search` speaks, each with its real request and response shape:
 * Brave (GET /res/v1/web/search, `X-Subscription-Token`), Tavily (POST /search, Bearer key),
 * SearXNG (GET /search?format=json, no key) and Exa (POST /search, `x-api-key`). Each turns its
 * answer into title, URL and snippet. The key goes only into the request's header; it is never
 * put in a URL, a message or an error.
 */
import { assertNever } from '../base/errors.js';
import type { SearchProviderName } from './contract.js';

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface ProviderRequest {
  url: URL;
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };
}

const ENDPOINTS: Record<SearchProviderName, { base?: string; path: string }> = {
  brave: { base: 'https://api.search.brave.com', path: '/res/v1/web/search' },
  tavily: { base: 'https://api.tavily.com', path: '/search' },
  searxng: { path: '/search' },
  exa: { base: 'https://api.exa.ai', path: '/search' },
};

/**
 * Where a provider's search goes: `configured` (web.search.url) as it is when it names a path,
 * else with the provider's path appended; no `configured`: the provider's own endpoint.
 */
export function endpointOf(provider: SearchProviderName, configured: string | undefined): URL {
  const { base, path } = ENDPOINTS[provider];
  const chosen = configured ?? base;
  if (chosen === undefined)
    throw new Error(`${provider} has no public endpoint; set web.search.url`);
  const url = new URL(chosen);
  if (url.pathname === '/' || url.pathname === '') url.pathname = path;
  return url;
}

export function providerRequest(
  provider: SearchProviderName,
  endpoint: URL,
  query: string,
  count: number,
  key: string | undefined,
): ProviderRequest {
  const url = new URL(endpoint);
  const json = { accept: 'application/json' };
  switch (provider) {
    case 'brave':
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(count));
      return {
        url,
        init: { method: 'GET', headers: { ...json, 'x-subscription-token': key ?? '' } },
      };
    case 'tavily':
      return {
        url,
        init: {
          method: 'POST',
          headers: {
            ...json,
            'content-type': 'application/json',
            authorization: `Bearer ${key ?? ''}`,
          },
          body: JSON.stringify({ query, max_results: count }),
        },
      };
    case 'searxng':
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      return {
        url,
        init: { method: 'GET', headers: key ? { ...json, authorization: `Bearer ${key}` } : json },
      };
    case 'exa':
      return {
        url,
        init: {
          method: 'POST',
          headers: { ...json, 'content-type': 'application/json', 'x-api-key': key ?? '' },
          body: JSON.stringify({
            query,
            numResults: count,
            contents: { highlights: { numSentences: 2, highlightsPerUrl: 1 } },
          }),
        },
      };
    default:
      return assertNever(provider, 'search provider');
  }
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  '#39': "'",
};

/** A snippet as plain text: Brave marks query words with `<strong>`; entities decoded. */
function plain(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value
    .replace(/<[^>]*>/g, '')
    .replace(/&(#?\w+);/g, (whole, name: string) => ENTITIES[name] ?? whole)
    .replace(/\s+/g, ' ')
    .trim();
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function list(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

/** The provider's answer as results; undefined when it is not the shape the provider documents. */
export function providerResults(
  provider: SearchProviderName,
  answer: unknown,
): SearchResult[] | undefined {
  const body = record(answer);
  let items: unknown[] | undefined;
  let snippetOf: (item: Record<string, unknown>) => string;
  switch (provider) {
    case 'brave':
      // No `web` at all: Brave found nothing for the query.
      items =
        body.web === undefined
          ? body.type === 'search'
            ? []
            : undefined
          : list(record(body.web).results);
      snippetOf = (item) => plain(item.description);
      break;
    case 'tavily':
    case 'searxng':
      items = list(body.results);
      snippetOf = (item) => plain(item.content);
      break;
    case 'exa':
      items = list(body.results);
      snippetOf = (item) =>
        plain(list(item.highlights)?.join(' … ')) ||
        plain(item.summary) ||
        plain(item.text).slice(0, 400);
      break;
    default:
      return assertNever(provider, 'search provider');
  }
  if (!items) return undefined;
  return items
    .map(record)
    .flatMap((item) =>
      typeof item.url === 'string'
        ? [{ title: plain(item.title) || item.url, url: item.url, snippet: snippetOf(item) }]
        : [],
    );
}
