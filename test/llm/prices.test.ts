/**
 * The cost of a token count (src/llm/prices.ts): cache reads and writes, counted inside `input`,
 * cost their own prices (the input price when a model states none), and a lookup serves as a
 * price source as a table does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costOf, hasPrices, priceOf } from '../../src/llm/prices.js';

const prices = {
  'anthropic:claude': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'openai:plain': { input: 2, output: 8 },
};

test('cache reads and writes cost their own prices, inside the input count', () => {
  // 1M input of which 600k read from the cache and 200k written to it; 100k output.
  const cost = costOf(prices, 'anthropic:claude', {
    input: 1_000_000,
    output: 100_000,
    cachedInput: 600_000,
    cacheWrite: 200_000,
  });
  const expected = 0.2 * 3 + 0.6 * 0.3 + 0.2 * 3.75 + 0.1 * 15;
  assert.ok(cost !== undefined && Math.abs(cost - expected) < 1e-9, String(cost));
});

test('without cache prices, cached tokens cost the input price; no price is an unknown cost', () => {
  const cost = costOf(prices, 'openai:plain', {
    input: 1_000_000,
    output: 0,
    cachedInput: 500_000,
  });
  assert.equal(cost, 2);
  assert.equal(costOf(prices, 'openai:other', { input: 1, output: 1 }), undefined);
});

test('a lookup is a price source: asked per model, always counted as priced', () => {
  const asked: string[] = [];
  const lookup = (model: string) => {
    asked.push(model);
    return model === 'x:y' ? { input: 1, output: 1 } : undefined;
  };
  assert.equal(hasPrices(lookup), true);
  assert.equal(hasPrices({}), false);
  assert.deepEqual(priceOf(lookup, 'x:y'), { input: 1, output: 1 });
  assert.equal(costOf(lookup, 'x:z', { input: 1, output: 1 }), undefined);
  assert.deepEqual(asked, ['x:y', 'x:z']);
});
