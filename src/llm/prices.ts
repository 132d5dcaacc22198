/**
 * Model prices from the `prices` config (US dollars per million tokens, by model spec as requests
 * log it) and the cost of a token count on one model. One table for every reader (the terminal's
 * `/cost`, workflow agents). A model without a price has an unknown cost, never 0.
 */

/** US dollars per million tokens, by model spec. */
export type PriceTable = Readonly<Record<string, { input: number; output: number }>>;

export interface TokenCount {
  input: number;
  output: number;
}

const MILLION = 1_000_000;

/** The cost of `tokens` on `model`, or undefined when it has no price. */
export function costOf(prices: PriceTable, model: string, tokens: TokenCount): number | undefined {
  const price = Object.hasOwn(prices, model) ? prices[model] : undefined;
  if (!price) return undefined;
  return (tokens.input * price.input + tokens.output * price.output) / MILLION;
}

/** `$0.0123`: cents and below stay visible. */
export function formatCost(costUsd: number): string {
  return `$${costUsd < 10 ? costUsd.toFixed(4) : costUsd.toFixed(2)}`;
}
