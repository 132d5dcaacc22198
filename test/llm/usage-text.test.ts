/**
 * The one wording of token counts (`/cost`, ACP `/usage`, the run report): cache reads and
 * writes and reasoning are named only when non-zero.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cacheText, formatTokens, tokensText } from '../../src/llm/usage-text.js';

test('tokensText names cache reads and writes inside the input, and reasoning inside the output', () => {
  assert.equal(
    tokensText({ input: 12_300, output: 2000, cachedInput: 9100, cacheWrite: 1200 }),
    '12k in (9.1k cached, 1.2k written to cache), 2.0k out',
  );
  assert.equal(
    tokensText({ input: 900, output: 40, cachedInput: 512 }),
    '900 in (512 cached), 40 out',
  );
  assert.equal(
    tokensText({ input: 900, output: 40, cacheWrite: 300 }),
    '900 in (300 written to cache), 40 out',
  );
  assert.equal(
    tokensText({ input: 900, output: 40, reasoning: 30 }),
    '900 in, 40 out (30 reasoning)',
  );
});

test('a count without cache tokens (absent or zero) reads as plain input and output', () => {
  assert.equal(tokensText({ input: 3000, output: 300 }), '3.0k in, 300 out');
  assert.equal(
    tokensText({ input: 3000, output: 300, cachedInput: 0, cacheWrite: 0, reasoning: 0 }),
    '3.0k in, 300 out',
  );
  assert.equal(cacheText({}), '');
  assert.equal(cacheText({ cachedInput: 2_500_000 }), '2.5M cached');
});

test('formatTokens keeps small counts exact and shortens large ones', () => {
  assert.equal(formatTokens(999), '999');
  assert.equal(formatTokens(1234), '1.2k');
  assert.equal(formatTokens(45_600), '46k');
  assert.equal(formatTokens(2_500_000), '2.5M');
});
