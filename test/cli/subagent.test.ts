import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isEvent, type SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, writeScriptedModel } from './loom-process.js';

const subagentCall = (description: string, prompt: string) => ({
  name: 'subagent',
  arguments: { description, prompt },
});

function sessions(home: string) {
  const folder = join(home, 'sessions');
  return readdirSync(folder)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => loadSessionFile(join(folder, name)));
}

test('loom run: the parent delegates with the subagent tool and quotes the answer', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: '^ask the expert$',
        steps: [
          { tools: [subagentCall('ask an expert', 'what is six times seven?')] },
          { reply: 'the expert said: {{lastToolResult}}' },
        ],
      },
      { when: 'six times seven', reply: 'forty-two' },
    ],
  });
  const result = await runLoom(
    ['run', '--model', `scripted:${model}`, '--cwd', home, 'ask the expert'],
    { home },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /the expert said: forty-two/);
  const all = sessions(home);
  assert.equal(all.length, 2);
  const child = all.find((session) => session.header.delegationDepth === 1);
  const root = all.find((session) => session.header.delegationDepth === 0);
  assert.equal(child?.header.parentSession, root?.header.sessionId);
  for (const session of all) assert.deepEqual(checkSessionInvariants(session.events), []);
});

test('loom run: a child that keeps delegating stops at the depth limit with an error it sees', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: '^dig$',
        steps: [
          { tools: [subagentCall('dig deeper', 'dig')] },
          { reply: 'up: {{lastToolResult}}' },
        ],
      },
    ],
  });
  const result = await runLoom(['run', '--model', `scripted:${model}`, '--cwd', home, 'dig'], {
    home,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /up: up: up: up: .*depth limit of 3 is reached/);

  const all = sessions(home);
  assert.deepEqual(all.map((session) => session.header.delegationDepth).sort(), [0, 1, 2, 3]);
  const deepest = all.find((session) => session.header.delegationDepth === 3);
  assert.ok(deepest);
  const results = deepest.events.filter((event): event is SessionEvent<'tool/result'> =>
    isEvent(event, 'tool/result'),
  );
  assert.equal(results.length, 1);
  assert.equal(results[0]?.data.isError, true);
  assert.equal(results[0]?.data.errorCode, 'DEPTH_LIMIT');
  assert.match(results[0]?.data.content ?? '', /depth limit/);
});

test('loom run --json: six subagent calls in one step answer in model order', async () => {
  const home = temporaryFolder();
  const jobs = [1, 2, 3, 4, 5, 6];
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: '^fan out$',
        steps: [
          { tools: jobs.map((n) => subagentCall(`job ${n}`, `job ${n}`)) },
          { reply: 'all six answered' },
        ],
      },
      // Later jobs answer sooner, so completion order differs from model order.
      ...jobs.map((n) => ({ when: `^job ${n}$`, delayMs: (6 - n) * 15, reply: `answer ${n}` })),
    ],
  });
  const result = await runLoom(
    ['run', '--json', '--model', `scripted:${model}`, '--cwd', home, 'fan out'],
    { home },
  );
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
  const calls = lines.filter((line) => line.type === 'tool/call');
  const results = lines.filter((line) => line.type === 'tool/result');
  assert.equal(calls.length, 6);
  assert.deepEqual(
    results.map((line) => line.data.callId),
    calls.map((line) => line.data.callId),
  );
  assert.deepEqual(
    results.map((line) => [line.data.name, line.data.isError, line.data.content]),
    jobs.map((n) => ['subagent', false, `answer ${n}`]),
  );
  assert.equal(lines.at(-1)?.type, 'turn/end');
  assert.equal(lines.at(-1)?.data.reason, 'completed');
  assert.equal(sessions(home).length, 7);
});
