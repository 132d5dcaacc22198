/**
 * Token counts as people read them, one wording for every reader: the terminal's `/cost`, ACP's
 * `/usage`, the workflow progress and the run report. Cache reads and writes are named only when
 * the provider reported some, so a route without caching reads as before. Text only: no markup,
 * no prices (`prices.ts` formats those).
 */
import type { Usage } from './contract.js';

/** `999`, `1.2k`, `46k`, `2.5M`. */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

/** `9.1k cached, 1.2k written to cache`; '' when the count has no cache tokens. */
export function cacheText(tokens: Pick<Usage, 'cachedInput' | 'cacheWrite'>): string {
  const parts: string[] = [];
  if (tokens.cachedInput) parts.push(`${formatTokens(tokens.cachedInput)} cached`);
  if (tokens.cacheWrite) parts.push(`${formatTokens(tokens.cacheWrite)} written to cache`);
  return parts.join(', ');
}

/**
 * `12.3k in (9.1k cached, 1.2k written to cache), 2.0k out (300 reasoning)`: the cache parts
 * (counted in `input` too) and reasoning (in `output`) only when non-zero.
 */
export function tokensText(tokens: Usage): string {
  const cache = cacheText(tokens);
  const reasoning = tokens.reasoning ? ` (${formatTokens(tokens.reasoning)} reasoning)` : '';
  return `${formatTokens(tokens.input)} in${cache !== '' ? ` (${cache})` : ''}, ${formatTokens(tokens.output)} out${reasoning}`;
}
