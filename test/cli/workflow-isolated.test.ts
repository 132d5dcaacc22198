/**
 * `workflow.engine: isolated` in config.yaml, through bin/loom in a real process: the script runs
 * in QuickJS, completes with its children's answers, finds no `process` or environment, and a
 * memory bomb under the config's `maxScriptMemoryMb` ends with SCRIPT_MEMORY, every agent paired.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { startLoom } from './loom-process.js';
import {
  agentPairs,
  parseResult,
  readEvents,
  runWorkflow,
  writeFile,
  writeJson,
} from './workflow-fixture.js';

const META = '{"name":"isolated","description":"runs on the isolated engine"}';

function setup() {
  const home = temporaryFolder();
  writeFileSync(
    join(home, 'config.yaml'),
    'workflow:\n  engine: isolated\n  maxScriptMemoryMb: 32\n  maxConcurrentAgents: 4\n',
  );
  const model = `scripted:${writeJson(home, 'model.json', {
    rules: [{ when: '^hold', hang: true }],
    default: { reply: 'ok' },
  })}`;
  return { home, model };
}

async function run(home: string, model: string, name: string, body: string) {
  const script = writeFile(home, `${name}.js`, body);
  const events = join(home, `${name}.events.jsonl`);
  const finished = await runWorkflow(
    ['run', script, '--meta', META, '--model', model, '--json', '--events', events],
    { home },
  );
  return { finished, events: readEvents(events) };
}

test('workflow run with workflow.engine isolated: children answer, and the script reaches no process', async () => {
  const { home, model } = setup();
  const { finished, events } = await run(
    home,
    model,
    'fan-out',
    `const answers = await pipeline(['a', 'b'], (item) => agent('say ' + item));
let reached;
try { reached = typeof log.constructor('return process')(); } catch (error) { reached = error.name; }
return { answers, reached, home: typeof HOME };
`,
  );
  assert.equal(finished.code, 0, finished.stderr);
  const result = parseResult(finished);
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(result.value, {
    answers: ['ok', 'ok'],
    reached: 'ReferenceError',
    home: 'undefined',
  });
  assert.equal([...agentPairs(events).values()].filter((pair) => pair.end).length, 2);
});

test('workflow run with workflow.engine isolated: a memory bomb after an await ends with SCRIPT_MEMORY', async () => {
  const { home, model } = setup();
  const { finished, events } = await run(
    home,
    model,
    'bomb',
    `const held = agent('hold on');
await agent('quick');
const hoard = [];
while (true) hoard.push(new Array(100000).fill(hoard.length));
`,
  );
  assert.equal(finished.code, 1, finished.stderr);
  const result = parseResult(finished);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.code, 'SCRIPT_MEMORY');
  const pairs = [...agentPairs(events).values()];
  assert.equal(pairs.length, 2);
  assert.ok(
    pairs.every((pair) => pair.end),
    'every agent-start has its agent-end',
  );
  assert.equal(events.at(-1)?.type, 'workflow/end');
});

/** A preload that counts the worker threads the main thread starts, and names each one's entry. */
const THREAD_COUNTER = `
const threads = require('node:worker_threads');
if (threads.isMainThread) {
  const started = [];
  const Base = threads.Worker;
  threads.Worker = class extends Base {
    constructor(entry, options) {
      super(entry, options);
      started.push(String(entry).split('/').pop());
    }
  };
  process.on('exit', () => require('node:fs').writeFileSync(process.env.THREADS_FILE, JSON.stringify(started)));
}
`;

test('workflow run with workflow.engine isolated starts one thread ahead, on the isolated engine', async () => {
  const { home, model } = setup();
  const counter = writeFile(home, 'count-threads.cjs', THREAD_COUNTER);
  const threadsFile = join(home, 'threads.json');
  const script = writeFile(home, 'one.js', "return await agent('hello');");
  const finished = await startLoom(
    ['workflow', 'run', script, '--meta', META, '--model', model, '--json'],
    {
      home,
      cwd: home,
      env: { NODE_OPTIONS: `--require ${counter}`, THREADS_FILE: threadsFile },
    },
  ).exited;
  assert.equal(finished.code, 0);
  assert.deepEqual(JSON.parse(readFileSync(threadsFile, 'utf8')), ['isolated-worker.cjs']);
});
