/**
 * The scripted model's declared context window through bin/loom: a request that fits is
 * answered, one larger than the window fails the turn as a provider's "context length exceeded"
 * would (exit 1, the message on stderr, not retried), and so does an `error: "context length
 * exceeded"` rule, even one with a retryable status.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runScripted, scriptedFolders } from './loom-process.js';

const window = 20_000;

test('loom run: a request larger than the scripted context window fails with exit 1 and says so', async () => {
  const folders = scriptedFolders({ context: window, default: { reply: 'fits' } });
  const small = await runScripted(folders, 'hi');
  assert.equal(small.code, 0, small.stderr);
  assert.match(small.stdout, /fits/);

  // 100,000 characters are about 25,000 tokens, over the 20,000-token window.
  const large = await runScripted(folders, `summarise ${'x'.repeat(100_000)}`);
  assert.equal(large.code, 1, large.stderr);
  assert.match(
    large.stderr,
    /context length exceeded: the request has \d+ tokens, the window is 20000/,
  );
  assert.doesNotMatch(large.stderr, /retrying/);
  assert.doesNotMatch(large.stdout, /fits/);
});

test('loom run: a rule "context length exceeded" fails the turn as an overflow, not retried even with a 503', async () => {
  const folders = scriptedFolders({
    rules: [
      // A 503 alone is retried; an overflow never is (the same request cannot fit the next time).
      { when: '^go$', error: 'context length exceeded', status: 503, times: 1 },
      { when: '^go$', reply: 'a retry would get this' },
    ],
  });
  const run = await runScripted(folders, 'go', { json: true });
  assert.equal(run.code, 1, run.stderr);
  const events = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
  assert.equal(events.filter((event) => event.type === 'model/retry').length, 0);
  assert.doesNotMatch(run.stdout, /a retry would get this/);
  const end = events.find((event) => event.type === 'turn/end');
  assert.equal(end?.data.reason, 'error');
  assert.match(JSON.stringify(end?.data), /context length exceeded/);
});
