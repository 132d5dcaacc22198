import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isEvent, type SessionEvent } from '../../src/core/session-events.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { sessions } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, writeScriptedModel } from './loom-process.js';

test('loom run: the parent delegates with the subagent tool and quotes the answer', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      callsThenReply(
        '^ask the expert$',
        [subagentCall('ask an expert', 'what is six times seven?')],
        'the expert said: {{lastToolResult}}',
      ),
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
    rules: [callsThenReply('^dig$', [subagentCall('dig deeper', 'dig')], 'up: {{lastToolResult}}')],
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
  // Run one after another, job 1 would wait for job 6 until this timeout and fail the test.
  writeFileSync(join(home, 'config.yaml'), 'tools:\n  bashTimeoutMs: 20000\n');
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
      // Job 1 cannot finish before job 6 has: its command waits for job 6's turn/end in the
      // session folder. So the completion order differs from the model order, every time.
      {
        when: '^job 1$',
        steps: [
          {
            tools: [
              {
                name: 'bash',
                arguments: {
                  command: `until grep -l '"type":"turn/end"' $(grep -l '"text":"job 6"' ${join(home, 'sessions')}/*.jsonl) </dev/null >/dev/null 2>&1; do sleep 0.02; done; echo job 6 is done`,
                },
              },
            ],
          },
          { reply: 'answer 1' },
        ],
      },
      ...jobs.slice(1).map((n) => ({ when: `^job ${n}$`, reply: `answer ${n}` })),
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
  const children = sessions(home).filter((session) => session.header.parentSession !== null);
  assert.equal(children.length, 6);
  const endOf = (prompt: string) => {
    const child = children.find((session) =>
      session.events.some((event) => isEvent(event, 'user/message') && event.data.text === prompt),
    );
    const end = child?.events.find((event) => event.type === 'turn/end');
    return end?.time ?? assert.fail(`no finished child for ${prompt}`);
  };
  assert.ok(endOf('job 6') <= endOf('job 1'), 'job 6 finished first');
  const firstChild = children.find((session) =>
    session.events.some((event) => isEvent(event, 'user/message') && event.data.text === 'job 1'),
  );
  const bash = firstChild?.events.find((event) => isEvent(event, 'tool/result'));
  assert.match(String((bash?.data as { content?: string })?.content), /^job 6 is done/);
});
