import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import {
  parseResult,
  readEvents,
  runWorkflow,
  startWorkflow,
  writeFile,
  writeJson,
} from './workflow-fixture.js';

const COMPLETED_LINE = /^agent #\d+ completed/;

const fortyAgents = `export const meta = { name: 'forty', description: 'forty agents' };
const answers = await parallel(Array.from({ length: 40 }, (_, index) => () => agent('task ' + index)));
return answers;
`;

interface RunLine {
  runId: string;
  status: string;
  agents: number;
  journaled: number;
  attempt: number;
  tokens: { input: number; output: number };
}

async function runsOf(home: string): Promise<RunLine[]> {
  const listed = await runWorkflow(['runs', '--json'], { home });
  assert.equal(listed.code, 0, listed.stderr);
  return listed.stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RunLine);
}

/** Starts `script` in `home` under `model`, SIGKILLs it after `completed` agents, returns its run id. */
async function killedRun(
  home: string,
  script: string,
  model: unknown,
  completed: number,
): Promise<string> {
  const path = writeFile(home, 'script.js', script);
  const modelPath = writeJson(home, 'first-model.json', model);
  const loom = startWorkflow(
    ['run', path, '--model', `scripted:${modelPath}`, '--max-concurrent', '4', '--json'],
    { home },
  );
  await loom.waitForStderr(COMPLETED_LINE, completed);
  loom.child.kill('SIGKILL');
  const exit = await loom.exited;
  assert.equal(exit.code, null, 'the run was killed, not finished');
  const runs = await runsOf(home);
  assert.equal(runs.length, 1);
  assert.equal(runs[0]?.status, 'interrupted');
  assert.ok(
    (runs[0]?.agents ?? 0) >= completed,
    'its completed agents are counted from the journal',
  );
  return runs[0]?.runId ?? '';
}

test('ACCEPTANCE: a 40-agent run killed with SIGKILL after 20 agents completed resumes with fewer than 21 model requests and the value of an uninterrupted run', async () => {
  const reference = temporaryFolder();
  const plain = writeJson(reference, 'model.json', {
    rules: [{ when: '^task (\\d+)$', reply: 'done {{1}}' }],
  });
  const whole = await runWorkflow(
    [
      'run',
      writeFile(reference, 'forty.js', fortyAgents),
      '--model',
      `scripted:${plain}`,
      '--json',
    ],
    { home: reference },
  );
  assert.equal(whole.code, 0, whole.stderr);
  const expected = parseResult(whole).value;
  assert.equal((expected as unknown[]).length, 40);

  const home = temporaryFolder();
  // Tasks 30-39 never answer in the first run, so it is still running when it is killed.
  const runId = await killedRun(
    home,
    fortyAgents,
    {
      rules: [
        { when: '^task ([12]?\\d)$', reply: 'done {{1}}' },
        { when: '^task', hang: true },
      ],
    },
    20,
  );

  // The resumed attempt's model answers at most 20 requests; a 21st would fail its agent.
  const limited = writeJson(home, 'resume-model.json', {
    rules: [{ when: '^task (\\d+)$', reply: 'done {{1}}', times: 20 }],
    default: { error: 'the resumed run asked the model more than 20 times' },
  });
  const eventsPath = join(home, 'resume-events.ndjson');
  const resumed = await runWorkflow(
    ['run', '--resume', runId, '--model', `scripted:${limited}`, '--json', '--events', eventsPath],
    { home },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  const result = parseResult(resumed);
  assert.equal(result.runId, runId);
  assert.deepEqual(result.value, expected);
  assert.deepEqual(result.failures, []);
  assert.equal(result.agentsStarted, 40);
  const ends = readEvents(eventsPath).filter((event) => event.type === 'workflow/agent-end');
  const journaled = ends.filter((event) => event.journaled === true).length;
  assert.ok(journaled >= 20, `${journaled} calls came from the journal`);
  assert.ok(40 - journaled < 21, `${40 - journaled} model requests`);

  const [listed] = await runsOf(home);
  assert.equal(listed?.status, 'completed');
  assert.equal(listed?.attempt, 2);
  assert.equal(listed?.agents, 40);
  assert.equal(listed?.journaled, journaled);
  assert.ok((listed?.tokens.input ?? 0) > 0, 'tokens of both attempts are counted');
  const table = await runWorkflow(['runs'], { home });
  assert.match(table.stdout, /^ID\s+NAME\s+STATUS\s+AGENTS\s+TOKENS\s+STARTED$/m);
  assert.match(
    table.stdout,
    new RegExp(`^${runId}\\s+forty\\s+completed\\s+40 \\(${journaled} journaled\\)`, 'm'),
  );
});

test('ACCEPTANCE: a script that calls Math.random() in a prompt still resumes and completes', async () => {
  const home = temporaryFolder();
  const script = `export const meta = { name: 'dice', description: 'a random prompt' };
const fixed = await agent('fixed question');
const rolled = await agent('roll ' + Math.random());
return { fixed, rolled: rolled.startsWith('rolled roll 0.') };
`;
  const runId = await killedRun(
    home,
    script,
    {
      rules: [
        { when: '^fixed question$', reply: 'fixed answer' },
        { when: '^roll', hang: true },
      ],
    },
    1,
  );
  const model = writeJson(home, 'resume-model.json', {
    rules: [
      { when: '^fixed question$', error: 'the journaled call was asked again' },
      { when: '^roll', reply: 'rolled {{prompt}}' },
    ],
  });
  const resumed = await runWorkflow(
    ['run', '--resume', runId, '--model', `scripted:${model}`, '--json'],
    { home },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.deepEqual(parseResult(resumed).value, { fixed: 'fixed answer', rolled: true });
  const run = JSON.parse(readFileSync(join(home, 'runs', runId, 'run.json'), 'utf8'));
  assert.equal(run.status, 'completed');
  assert.equal(run.journaled, 1);
});

test('workflow run: --resume of an unknown or malformed run id, or no script at all, cannot start (exit 2)', async () => {
  const home = temporaryFolder();
  const unknown = await runWorkflow(
    ['run', '--resume', 'workflow-00000000-0000-4000-8000-000000000000'],
    { home },
  );
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /INVALID_ARGUMENT: no run workflow-0+-0+-4000-8000-0+ in .*runs/);
  const malformed = await runWorkflow(['run', '--resume', '../x'], { home });
  assert.equal(malformed.code, 2);
  assert.match(malformed.stderr, /"\.\.\/x" is not a run id/);
  const nothing = await runWorkflow(['run'], { home });
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /a workflow NAME or FILE is needed/);
  const empty = await runWorkflow(['runs'], { home });
  assert.equal(empty.code, 0);
  assert.match(empty.stderr, /no workflow runs yet/);
});
