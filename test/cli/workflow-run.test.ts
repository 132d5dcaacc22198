import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { requestPrompts, sessionPaths } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom } from './loom-process.js';
import {
  agentPairs,
  type EventLine,
  parseResult,
  readEvents,
  runWorkflow,
  startScriptedWorkflow,
  writeFile,
  writeJson,
} from './workflow-fixture.js';

const TRIAGE = `export const meta = {
  name: 'triage',
  description: 'Find files, lint each, then review and test it in parallel',
  phases: [{ title: 'find' }, { title: 'check', detail: 'lint, then review and test' }, { title: 'wrap up' }],
};

phase('find');
const found = await agent('find files under src', {
  label: 'find',
  schema: {
    type: 'object',
    properties: { files: { type: 'array', items: { type: 'string' } } },
    required: ['files'],
  },
});
log(\`found \${found.files.length} files\`);

phase('check');
const checked = await pipeline(
  found.files,
  (file) => agent(\`lint \${file}\`, { label: \`lint \${file}\` }),
  (lint, file) =>
    parallel([
      () => agent(\`review \${file} after: \${lint}\`, { label: \`review \${file}\` }),
      () => agent(\`test \${file}\`, { label: \`test \${file}\`, phase: 'check' }),
    ]),
);

phase('wrap up');
const rounds = [];
for (let round = 1; round <= 2; round += 1) {
  rounds.push(await agent(\`round \${round}\`, { label: \`round \${round}\` }));
}
let words = 0;
for (const pair of checked) for (const text of pair) words += text.split(' ').length;
return { files: found.files, checked, rounds, words, fromArgs: args.who ?? null };
`;

const TRIAGE_MODEL = {
  rules: [
    { when: '^find files', output: { files: ['a.ts', 'b.ts', 'c.ts'] } },
    { when: '^lint (\\S+)', reply: 'lint ok for {{1}}' },
    { when: '^review (\\S+) after: (.*)', reply: 'reviewed {{1}}' },
    { when: '^test (\\S+)', reply: 'tested {{1}}' },
    { when: '^round (\\d)', reply: 'round {{1}} done' },
  ],
};

function triageFiles() {
  const home = temporaryFolder();
  const script = writeFile(home, 'triage.js', TRIAGE);
  const model = `scripted:${writeJson(home, 'model.json', TRIAGE_MODEL)}`;
  return { home, script, model };
}

test('workflow run: a Claude Code script with its header runs unchanged (schema, pipeline with nested parallel, loops)', async () => {
  const { home, script, model } = triageFiles();
  const run = await runWorkflow(
    ['run', script, '--model', model, '--json', '--args', '{"who":"tests"}'],
    { home },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.deepEqual(Object.keys(result), [
    'runId',
    'name',
    'stopReason',
    'value',
    'agentsStarted',
    'failures',
    'tokens',
    'agents',
  ]);
  assert.match(String(result.runId), /^workflow-[0-9a-f-]{36}$/);
  assert.equal(result.name, 'triage');
  assert.equal(result.stopReason, 'completed');
  assert.equal(result.agentsStarted, 1 + 3 + 6 + 2);
  assert.deepEqual(result.failures, []);
  assert.deepEqual(result.value, {
    files: ['a.ts', 'b.ts', 'c.ts'],
    checked: [
      ['reviewed a.ts', 'tested a.ts'],
      ['reviewed b.ts', 'tested b.ts'],
      ['reviewed c.ts', 'tested c.ts'],
    ],
    rounds: ['round 1 done', 'round 2 done'],
    words: 12,
    fromArgs: 'tests',
  });
});

test('workflow run --events: one line per event with the SPEC fields, every agent-start ended', async () => {
  const { home, script, model } = triageFiles();
  const eventsPath = join(home, 'events.ndjson');
  const startedAt = Date.now();
  const run = await runWorkflow(['run', script, '--model', model, '--events', eventsPath], {
    home,
  });
  const endedAt = Date.now();
  assert.equal(run.code, 0, run.stderr);
  const printed = JSON.parse(run.stdout) as { files: string[]; words: number };
  assert.deepEqual(
    [printed.files, printed.words],
    [['a.ts', 'b.ts', 'c.ts'], 12],
    'without --json the returned value is printed as JSON',
  );
  const events = readEvents(eventsPath);
  const first = events[0];
  const last = events.at(-1);
  assert.equal(first?.type, 'workflow/start');
  assert.equal(first?.name, 'triage');
  assert.equal(last?.type, 'workflow/end');
  assert.equal(last?.stopReason, 'completed');
  assert.equal(last?.agentsStarted, 12);
  const runId = first?.runId;
  for (const event of events) {
    assert.equal(event.runId, runId);
    assert.ok(
      Number.isInteger(event.time) &&
        (event.time as number) >= startedAt &&
        (event.time as number) <= endedAt,
      `time ${event.time} is a millisecond timestamp of the run`,
    );
  }
  const phases = events.filter((event) => event.type === 'workflow/phase');
  assert.deepEqual(
    phases.map((event) => event.title),
    ['find', 'check', 'wrap up'],
  );
  const logs = events.filter((event) => event.type === 'workflow/log');
  assert.deepEqual(
    logs.map((event) => event.message),
    ['found 3 files'],
  );
  const pairs = agentPairs(events);
  assert.equal(pairs.size, 12);
  for (const [seq, { start, end }] of pairs) {
    assert.ok(end, `agent ${seq} has an agent-end`);
    assert.equal(end.label, start.label);
    assert.equal(end.phase, start.phase);
    assert.equal(end.outcome, 'completed');
    assert.ok(events.indexOf(start) < events.indexOf(end));
  }
  const labels = [...pairs.values()].map(({ start }) => `${start.phase}: ${start.label}`);
  const perFile = (file: string) => [
    `check: lint ${file}`,
    `check: review ${file}`,
    `check: test ${file}`,
  ];
  const expected = [
    'find: find',
    ...perFile('a.ts'),
    ...perFile('b.ts'),
    ...perFile('c.ts'),
    'wrap up: round 1',
    'wrap up: round 2',
  ];
  assert.deepEqual(labels.sort(), expected.sort());
});

test('workflow run: progress on a non-terminal stderr is one plain line per event', async () => {
  const { home, script, model } = triageFiles();
  const run = await runWorkflow(['run', script, '--model', model], { home });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /^workflow triage: Find files/m);
  assert.match(run.stderr, /^phase: check$/m);
  assert.match(run.stderr, /^agent #\d+ started: lint a\.ts \[check\]$/m);
  assert.match(run.stderr, /^agent #\d+ completed: review b\.ts \(\d+ in \/ \d+ out\)$/m);
  assert.match(run.stderr, /^log: found 3 files$/m);
  assert.match(
    run.stderr,
    /^workflow triage completed in [\d.]+s: 12 agents \(12 done, 0 failed, 0 cancelled\), tokens \S+ in \/ \S+ out$/m,
  );
  assert.ok(!run.stderr.includes('\u001b['), 'no terminal control codes when stderr is not a TTY');
});

test('workflow run: a failed child nulls its item; the run completes with a failed agent (exit 3) and lists the failure', async () => {
  const home = temporaryFolder();
  const script = writeFile(
    home,
    'audit.js',
    `export const meta = { name: 'audit', description: 'Audit three files' };
const files = ['a.ts', 'b.ts', 'c.ts'];
const results = await parallel(files.map((file) => () => agent(\`audit \${file}\`, { label: \`audit \${file}\` })));
return { results, audited: results.filter(Boolean).length };
`,
  );
  const model = writeJson(home, 'model.json', {
    rules: [
      { when: '^audit b\\.ts', error: 'upstream 500: overloaded' },
      { when: '^audit (\\S+)', reply: 'clean: {{1}}' },
    ],
  });
  const run = await runWorkflow(['run', script, '--model', `scripted:${model}`, '--json'], {
    home,
  });
  assert.equal(run.code, 3, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.value, { results: ['clean: a.ts', null, 'clean: c.ts'], audited: 2 });
  assert.equal(result.agentsStarted, 3);
  const failures = result.failures as Array<Record<string, unknown>>;
  assert.equal(failures.length, 1);
  assert.deepEqual(Object.keys(failures[0] ?? {}), ['seq', 'label', 'outcome', 'reason']);
  assert.equal(failures[0]?.seq, 2, 'parallel starts its thunks in order: b.ts is the second');
  assert.equal(failures[0]?.label, 'audit b.ts');
  assert.equal(failures[0]?.outcome, 'failed');
  assert.match(String(failures[0]?.reason), /upstream 500: overloaded/);
  assert.match(run.stderr, /^agent #\d+ failed: audit b\.ts.*upstream 500/m);
});

test('workflow run: a script that throws exits 1 with the message and code in --json', async () => {
  const home = temporaryFolder();
  const script = writeFile(
    home,
    'throws.js',
    `const first = await agent('hello', { label: 'greet' });
if (first) throw new Error('the audit list is empty');
return 1;
`,
  );
  const meta = writeJson(home, 'meta.json', { name: 'thrower', description: 'Throws' });
  const model = writeJson(home, 'model.json', { rules: [], default: { reply: 'hi' } });
  const run = await runWorkflow(
    ['run', script, '--meta', meta, '--model', `scripted:${model}`, '--json'],
    { home },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = parseResult(run);
  assert.deepEqual(Object.keys(result), [
    'runId',
    'name',
    'stopReason',
    'value',
    'error',
    'code',
    'agentsStarted',
    'failures',
    'tokens',
    'agents',
  ]);
  assert.equal(result.name, 'thrower');
  assert.equal(result.stopReason, 'error');
  assert.equal(result.value, null);
  assert.match(String(result.error), /the audit list is empty/);
  assert.equal(result.code, 'SCRIPT_ERROR');
  assert.equal(result.agentsStarted, 1);
});

test('workflow run: a tripped cap is a fatal error with its code', async () => {
  const home = temporaryFolder();
  const script = writeFile(
    home,
    'many.js',
    `export const meta = { name: 'many', description: 'Starts three agents' };
return await parallel([1, 2, 3].map((n) => () => agent(\`item \${n}\`, { label: \`item \${n}\` })));
`,
  );
  const model = writeJson(home, 'model.json', { rules: [], default: { reply: 'ok' } });
  const run = await runWorkflow(
    ['run', script, '--model', `scripted:${model}`, '--max-agents', '2', '--json'],
    { home },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.code, 'AGENT_CAP');
});

test('workflow run: --meta wins over the header, and --args can be a JSON file', async () => {
  const { home, script, model } = triageFiles();
  const meta = JSON.stringify({ name: 'renamed', description: 'Meta from the flag' });
  const args = writeJson(home, 'args.json', { who: 'a file' });
  const run = await runWorkflow(
    ['run', script, '--model', model, '--meta', meta, '--args', args, '--json'],
    { home },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.equal(result.name, 'renamed');
  assert.equal((result.value as { fromArgs: string }).fromArgs, 'a file');
});

const HANDSHAKE = `export const meta = { name: 'handshake', description: 'A waiter that ends once its partner has run' };
return await parallel([
  () => agent('wait for the partner', { label: 'waiter' }),
  () => agent('signal the waiter', { label: 'signaller' }),
]);
`;

/** The waiter's command ends when the signaller has written its file, or at the bash timeout. */
const HANDSHAKE_MODEL = {
  rules: [
    {
      when: '^wait for the partner',
      steps: [
        {
          tools: [
            {
              name: 'bash',
              arguments: {
                command: 'until [ -e partner-done ]; do sleep 0.02; done; echo partner seen',
              },
            },
          ],
        },
        { reply: 'waiter: {{lastToolResult}}' },
      ],
    },
    {
      when: '^signal the waiter',
      steps: [
        { tools: [{ name: 'write_file', arguments: { path: 'partner-done', content: 'done' } }] },
        { reply: 'signalled' },
      ],
    },
  ],
};

/** The most agents running at once, read from the order of agent-start and agent-end. */
function mostRunningAtOnce(events: readonly EventLine[]): number {
  let running = 0;
  let most = 0;
  for (const event of events) {
    if (event.type === 'workflow/agent-start') running += 1;
    if (event.type === 'workflow/agent-end') running -= 1;
    most = Math.max(most, running);
  }
  return most;
}

async function runHandshake(flag: string, config: string) {
  const home = temporaryFolder();
  writeFile(home, 'config.yaml', config);
  const { loom, eventsPath } = startScriptedWorkflow(
    home,
    { name: 'handshake.js', script: HANDSHAKE, model: HANDSHAKE_MODEL },
    ['--max-concurrent', flag, '--json'],
  );
  const run = await loom.exited;
  assert.equal(run.code, 0, run.stderr);
  const events = readEvents(eventsPath);
  const order = events
    .filter((event) => event.type.startsWith('workflow/agent-'))
    .map((event) => `${event.type.slice('workflow/agent-'.length)} ${event.label}`);
  return { result: parseResult(run), events, order };
}

test('workflow run: --max-concurrent 1 runs one child at a time, over a config that allows 8', async () => {
  const { result, events, order } = await runHandshake(
    '1',
    'workflow:\n  maxConcurrentAgents: 8\ntools:\n  bashTimeoutMs: 1000\n',
  );
  assert.equal(mostRunningAtOnce(events), 1);
  assert.deepEqual(order, ['start waiter', 'end waiter', 'start signaller', 'end signaller']);
  assert.match(String((result.value as string[])[0]), /^waiter: \[killed: timeout after 1000 ms\]/);
});

test('workflow run: --max-concurrent 2 runs two children at once, over a config that allows 1', async () => {
  const { result, events, order } = await runHandshake(
    '2',
    'workflow:\n  maxConcurrentAgents: 1\ntools:\n  bashTimeoutMs: 60000\n',
  );
  assert.equal(mostRunningAtOnce(events), 2);
  // Both start before either ends (the waiter ends only once the signaller has written); which
  // of them then finishes first is not what this pins, so the ends are compared as a set.
  assert.deepEqual(order.slice(0, 2), ['start waiter', 'start signaller']);
  assert.deepEqual(order.slice(2).sort(), ['end signaller', 'end waiter']);
  assert.deepEqual(result.value, ['waiter: partner seen\n[exit code: 0]', 'signalled']);
});

test('workflow run: a one-answer child leaves a file under 2 KB that names its prompt in the shared store by hash', async () => {
  const home = temporaryFolder('loom-workflow-store-');
  const script = writeFile(
    home,
    'fan-out.js',
    "export const meta = { name: 'fan-out', description: 'instant agents' };\n" +
      "return (await parallel(Array.from({ length: 6 }, (_, index) => () => agent('item ' + index)))).length;\n",
  );
  const model = writeJson(home, 'model.json', { rules: [], default: { reply: 'ok' } });
  const run = await runWorkflow(
    ['run', script, '--model', `scripted:${model}`, '--max-concurrent', '4', '--json'],
    { home },
  );
  assert.equal(parseResult(run).value, 6, run.stderr);
  const children = sessionPaths(home);
  assert.equal(children.length, 6);
  const folder = join(home, 'sessions');
  assert.deepEqual(readdirSync(join(folder, 'prompts')).length, 1, 'one prompt for all six');
  const [stored] = readdirSync(join(folder, 'prompts'));
  assert.ok(statSync(join(folder, 'prompts', stored ?? '')).size > 4096, 'the prompt is larger');
  for (const path of children) {
    // Its events, a `context/usage` line among them, without the prompt (several KB) inline.
    assert.ok(statSync(path).size < 2048, `${path} is ${statSync(path).size} bytes`);
    const { events } = loadSessionFile(path);
    assert.deepEqual(checkSessionInvariants(events), []);
    const [request] = requestPrompts(events, folder);
    assert.match(request?.system ?? '', /one step of a workflow script/);
    assert.doesNotMatch(readFileSync(path, 'utf8'), /one step of a workflow script/);
  }
  const id = basename(children[0] ?? '', '.jsonl');
  const show = await runLoom(['sessions', 'show', id], { home });
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /prompt\/stored +[0-9a-f]{32}, kept in the prompt store$/m);
});
