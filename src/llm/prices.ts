/**
 * Model prices (US dollars per million tokens, by model spec as requests log it) and the cost of
 * a token count on one model, cache reads and writes at their own prices. One source for every
 * reader (the terminal's `/cost`, workflow agents): a plain table (config `prices`) or a lookup
 * (the model catalog, above this layer). A model without a price has an unknown cost, never 0.
 */

/** What one model costs, in US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Prompt tokens read from the cache; default the input price. */
  cacheRead?: number;
  /** Prompt tokens written to the cache; default the input price. */
  cacheWrite?: number;
}

/** US dollars per million tokens, by model spec. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** Prices by model spec: a table, or a lookup that finds a model's price when a cost is asked. */
export type PriceSource = PriceTable | ((model: string) => ModelPrice | undefined);

export interface TokenCount {
  input: number;
  output: number;
  /** Prompt tokens read from the cache, counted in `input` too. */
  cachedInput?: number;
  /** Prompt tokens written to the cache, counted in `input` too. */
  cacheWrite?: number;
}

/** `total` plus `more`, cache reads and writes kept when non-zero (any `reasoning` is not). */
export function addTokens(total: TokenCount, more: TokenCount): TokenCount {
  const sum: TokenCount = { input: total.input + more.input, output: total.output + more.output };
  const cachedInput = (total.cachedInput ?? 0) + (more.cachedInput ?? 0);
  const cacheWrite = (total.cacheWrite ?? 0) + (more.cacheWrite ?? 0);
  if (cachedInput > 0) sum.cachedInput = cachedInput;
  if (cacheWrite > 0) sum.cacheWrite = cacheWrite;
  return sum;
}

const MILLION = 1_000_000;

/** The price of `model`, or undefined when it has none. */
export function priceOf(prices: PriceSource, model: string): ModelPrice | undefined {
  if (typeof prices === 'function') return prices(model);
  return Object.hasOwn(prices, model) ? prices[model] : undefined;
}

/** Whether any model may have a price (a lookup may; an empty table has none). */
export function hasPrices(prices: PriceSource): boolean {
  return typeof prices === 'function' || Object.keys(prices).length > 0;
}

/** The cost of `tokens` on `model`, or undefined when it has no price. */
export function costOf(prices: PriceSource, model: string, tokens: TokenCount): number | undefined {
  const price = priceOf(prices, model);
  if (!price) return undefined;
  const cacheRead = Math.min(tokens.cachedInput ?? 0, tokens.input);
  const cacheWrite = Math.min(tokens.cacheWrite ?? 0, tokens.input - cacheRead);
  const plainInput = tokens.input - cacheRead - cacheWrite;
  return (
    (plainInput * price.input +
      cacheRead * (price.cacheRead ?? price.input) +
      cacheWrite * (price.cacheWrite ?? price.input) +
      tokens.output * price.output) /
    MILLION
  );
}

/** `$0.0123`: cents and below stay visible. */
export function formatCost(costUsd: number): string {
  return `$${costUsd < 10 ? costUsd.toFixed(4) : costUsd.toFixed(2)}`;
}
