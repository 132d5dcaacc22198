/**
 * Token usage over ACP: `/usage` and the prompt response add up every turn's usage, the cache
 * tokens read and written included; a child's ACP usage is read back with them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sessionUsageOf } from '../../src/acp/session-commands.js';
import { usageOf } from '../../src/subagent/acp-child-log.js';

const turnEnd = (usage: object) => ({ type: 'turn/end', data: { usage } });

test('sessionUsageOf adds up the cache tokens read and written of every ended turn', () => {
  const total = sessionUsageOf([
    turnEnd({ input: 100, output: 5, cachedInput: 60, cacheWrite: 30 }),
    { type: 'assistant/message', data: { usage: { input: 999, output: 999, cacheWrite: 999 } } },
    turnEnd({ input: 50, output: 5, cacheWrite: 10 }),
  ]);
  assert.equal(total.cachedInput, 60);
  assert.equal(total.cacheWrite, 40);
  assert.equal(total.input, 150);
});

test("a child agent's ACP usage keeps cachedReadTokens and cachedWriteTokens", () => {
  const usage = usageOf({
    usage: {
      inputTokens: 100,
      outputTokens: 5,
      totalTokens: 105,
      cachedReadTokens: 60,
      cachedWriteTokens: 30,
    },
  });
  assert.deepEqual(usage, { input: 100, output: 5, cachedInput: 60, cacheWrite: 30 });
});
