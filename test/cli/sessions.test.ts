import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { describeEvent } from '../../src/cli/sessions-command.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { abortedProgramEvents, programEvents } from '../helpers/inner-call-events.js';
import { callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { sessionIdOf } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, startLoom, writeScriptedModel } from './loom-process.js';

const model = {
  rules: [
    { when: 'stuck', hang: true },
    { when: 'remember (\\w+)', reply: 'noted {{1}}' },
  ],
  default: { reply: 'heard: {{prompt}}' },
};

test('loom run --session continues a session; sessions list and show see both turns', async () => {
  const home = temporaryFolder();
  const path = writeScriptedModel(home, model);
  const first = await runLoom(
    ['run', '--json', '--model', `scripted:${path}`, '--cwd', home, 'remember apples'],
    {
      home,
    },
  );
  assert.equal(first.code, 0, first.stderr);
  const id = sessionIdOf(first.stdout);
  const second = await runLoom(
    ['run', '--model', `scripted:${path}`, '--cwd', home, '--session', id, 'what now'],
    {
      home,
    },
  );
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /heard: what now/);

  const list = await runLoom(['sessions', 'list', '--cwd', home], { home });
  assert.equal(list.code, 0, list.stderr);
  assert.match(
    list.stdout,
    new RegExp(`^${id} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +remember apples +2 turns$`, 'm'),
  );

  const show = await runLoom(['sessions', 'show', id], { home });
  assert.equal(show.code, 0, show.stderr);
  assert.doesNotMatch(show.stdout, /^ +\d+ +assistant\/chunk/m);
  assert.match(
    show.stdout,
    /^\(\d+ streamed assistant\/chunk events hidden; --chunks shows them\)$/m,
  );
  const withChunks = await runLoom(['sessions', 'show', '--chunks', id], { home });
  assert.match(withChunks.stdout, /^ +\d+ +assistant\/chunk/m);
  assert.doesNotMatch(withChunks.stdout, /hidden/);
  assert.match(show.stdout, /\[followup\] remember apples/);
  assert.match(show.stdout, /\[followup\] what now/);
  assert.match(show.stdout, /noted apples/);
  assert.equal((show.stdout.match(/turn\/end +completed/g) ?? []).length, 2);

  const raw = await runLoom(['sessions', 'show', '--json', id], { home });
  const lines = raw.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string });
  assert.equal(lines.filter((line) => line.type === 'turn/start').length, 2);
});

test('after SIGKILL mid-turn, --session repairs the session and continues it', async () => {
  const home = temporaryFolder();
  const path = writeScriptedModel(home, model);
  const run = startLoom(['run', '--json', '--model', `scripted:${path}`, '--cwd', home, 'stuck'], {
    home,
  });
  const header = await run.waitForLine(/"type":"request\/header"/);
  run.child.kill('SIGKILL');
  await run.exited;
  const id = sessionIdOf(header);
  const next = await runLoom(
    ['run', '--json', '--model', `scripted:${path}`, '--cwd', home, '--session', id, 'again'],
    {
      home,
    },
  );
  assert.equal(next.code, 0, next.stderr);
  const show = await runLoom(['sessions', 'show', id], { home });
  assert.match(show.stdout, /turn\/end +interrupted/);
  assert.match(show.stdout, /turn\/end +completed/);
  assert.ok(show.stdout.indexOf('interrupted') < show.stdout.indexOf('completed'));
});

test('loom sessions show names a session that does not exist', async () => {
  const home = temporaryFolder();
  const result = await runLoom(['sessions', 'show', 'no-such-session'], { home });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /no-such-session/);
});

test('loom sessions list: a header row, id, created, first prompt, turns; children only with --children', async () => {
  const home = temporaryFolder();
  const path = writeScriptedModel(home, {
    rules: [
      callsThenReply(
        '^ask the expert$',
        [subagentCall('ask', 'six times seven?')],
        'the expert said: {{lastToolResult}}',
      ),
      { when: 'six times seven', reply: 'forty-two' },
    ],
    default: { reply: 'heard: {{prompt}}' },
  });
  const run = (...args: string[]) =>
    runLoom(['run', '--json', '--model', `scripted:${path}`, '--cwd', home, ...args], { home });
  const parent = await run('ask the expert');
  assert.equal(parent.code, 0, parent.stderr);
  const parentId = sessionIdOf(parent.stdout);
  const other = await run('remember pears');
  assert.equal(other.code, 0, other.stderr);
  const otherId = sessionIdOf(other.stdout);
  assert.equal((await run('--session', otherId, 'and plums')).code, 0);
  const script = join(home, 'one.js');
  writeFileSync(
    script,
    "export const meta = { name: 'one', description: 'One child' };\nreturn await agent('six times seven?');\n",
  );
  const workflow = await runLoom(['workflow', 'run', script, '--model', `scripted:${path}`], {
    home,
    cwd: home,
  });
  assert.equal(workflow.code, 0, workflow.stderr);

  const list = await runLoom(['sessions', 'list'], { home, cwd: home });
  assert.equal(list.code, 0, list.stderr);
  const lines = list.stdout.trimEnd().split('\n');
  assert.match(lines[0] ?? '', /^ID +CREATED +FIRST PROMPT +TURNS$/);
  assert.equal(lines.length, 3, list.stdout);
  assert.match(
    lines[1] ?? '',
    new RegExp(`^${parentId} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +ask the expert +1 turn$`),
  );
  assert.match(
    lines[2] ?? '',
    new RegExp(`^${otherId} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +remember pears +2 turns$`),
  );
  const promptColumn = (lines[0] ?? '').indexOf('FIRST PROMPT');
  assert.equal(lines[1]?.indexOf('ask the expert'), promptColumn);
  assert.equal(lines[2]?.indexOf('remember pears'), promptColumn);
  assert.match(list.stderr, /^2 child sessions of subagents not shown; --children lists them/);

  const all = await runLoom(['sessions', 'list', '--children'], { home, cwd: home });
  assert.equal(all.code, 0, all.stderr);
  const allLines = all.stdout.trimEnd().split('\n');
  assert.equal(allLines.length, 5, all.stdout);
  assert.match(allLines[1] ?? '', new RegExp(`^${parentId} `));
  assert.match(
    allLines[2] ?? '',
    /^└ \S+ +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +six times seven\? +1 turn$/,
  );
  assert.match(allLines[3] ?? '', new RegExp(`^${otherId} `));
  // A `loom workflow run` child has no parent session: listed in its place, marked as a child.
  assert.match(
    allLines[4] ?? '',
    /^↳ \S+ +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +six times seven\? +1 turn$/,
  );
  assert.equal(all.stderr, '');

  const json = await runLoom(['sessions', 'list', '--json', '--children'], { home, cwd: home });
  const summaries = json.stdout
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as { id: string; parentSession: string | null; delegationDepth: number },
    );
  assert.deepEqual(
    summaries.map((summary) => [summary.parentSession, summary.delegationDepth]),
    [
      [null, 0],
      [parentId, 1],
      [null, 0],
      [null, 1],
    ],
  );
});

test('sessions show describes a prompt blob and request headers of both formats', () => {
  const tools = [{ name: 'echo', description: 'Echo.', parameters: { type: 'object' } }];
  const event = (seq: number, type: string, data: unknown) =>
    ({ type, seq, time: 0, data }) as SessionEvent;
  assert.match(
    describeEvent(event(1, 'prompt/blob', { hash: 'abc', system: 'You are Loom.', tools })),
    /prompt\/blob +abc, 1 tools, 13 characters of system prompt$/,
  );
  const base = { turnId: 't1', step: 1, model: 'scripted:test' };
  assert.match(
    describeEvent(event(2, 'request/header', { ...base, prompt: 'abc' })),
    /request\/header +scripted:test, prompt abc$/,
  );
  assert.match(
    describeEvent(event(3, 'request/header', { ...base, system: 'S', tools })),
    /request\/header +scripted:test, 1 tools$/,
  );
});

test('sessions show marks the inner calls of a run_code program, also a cancelled one', () => {
  const lines = programEvents().map(describeEvent);
  assert.match(lines[2] ?? '', /tool\/call +run_code \{"code"/);
  assert.match(lines[3] ?? '', /tool\/call +↳ in call_1: read_file \{"path":"a\.ts"\}$/);
  assert.match(lines[4] ?? '', /tool\/call +↳ in call_1: grep \{"pattern":"TODO"\}$/);
  assert.match(lines[5] ?? '', /tool\/result +↳ in call_1: read_file: export const a = 1;$/);
  assert.match(lines[7] ?? '', /tool\/result +run_code: \{"value":2\}$/);
  const aborted = abortedProgramEvents().map(describeEvent);
  assert.match(aborted[5] ?? '', /tool\/result +↳ in call_1: read_file \(error\): aborted$/);
  assert.match(aborted[7] ?? '', /tool\/result +run_code \(error\): aborted$/);
});
