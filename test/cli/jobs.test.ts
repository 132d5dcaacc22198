import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionEvent, SessionEventType } from '../../src/core/session-events.js';
import type { LoadedSession } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { noneLeft } from '../helpers/process-state.js';
import { sessions, toolResults as toolResultsOf } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { startLoom, writeScriptedModel } from './loom-process.js';

interface Line {
  type: string;
  data: Record<string, unknown>;
}

const backgroundBash = (command: string) => ({
  name: 'bash',
  arguments: { command, run_in_background: true },
});
const jobOutput = (jobId: string) => ({
  name: 'job_output',
  arguments: { job_id: jobId, wait: true },
});

/** Runs `loom run --json` with a scripted model in a workspace of its own. */
async function runJson(model: unknown, prompt: string, setup?: (home: string) => void) {
  const home = temporaryFolder();
  const workspace = temporaryFolder('loom-jobs-workspace-');
  setup?.(home);
  const file = writeScriptedModel(home, model);
  const started = Date.now();
  const run = startLoom(
    ['run', '--json', '--model', `scripted:${file}`, '--cwd', workspace, prompt],
    { home },
  );
  const { code } = await run.exited;
  const lines = run
    .stdout()
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);
  return { code, stderr: run.stderr(), lines, home, workspace, elapsedMs: Date.now() - started };
}

function rootSession(home: string): LoadedSession {
  const root = sessions(home).find((session) => session.header.delegationDepth === 0);
  assert.ok(root);
  return root;
}

function dataOf<Type extends SessionEventType>(
  session: LoadedSession,
  type: Type,
): SessionEvent<Type>['data'][] {
  return session.events
    .filter((event): event is SessionEvent<Type> => event.type === type)
    .map((event) => event.data);
}

function toolResults(lines: Line[], name: string): string[] {
  return toolResultsOf(lines, name).map((data) => data.content);
}

test('loom run: a background bash job is read with job_output and ends completed', async () => {
  const result = await runJson(
    {
      rules: [
        {
          when: '^run it in the background$',
          steps: [
            { tools: [backgroundBash('echo hello from the job')] },
            { tools: [jobOutput('bash-1')] },
            { reply: 'read it' },
          ],
        },
        // A job that ends before the read is announced by a notice joining the turn: read it then.
        {
          when: '^\\[job bash-1 completed\\]',
          steps: [{ tools: [jobOutput('bash-1')] }, { reply: 'read it' }],
        },
      ],
    },
    'run it in the background',
  );
  assert.equal(result.code, 0, result.stderr);
  const [started] = toolResults(result.lines, 'bash');
  assert.match(started ?? '', /^Started background job bash-1: echo hello from the job\./);
  const reads = toolResults(result.lines, 'job_output').join('\n');
  assert.match(reads, /hello from the job\n\[status: completed\] exit code 0/);
  const root = rootSession(result.home);
  assert.deepEqual(
    dataOf(root, 'job/end').map((end) => [end.jobId, end.status]),
    [['bash-1', 'completed']],
  );
  assert.deepEqual(checkSessionInvariants(root.events), []);
});

test('loom run: job_kill waits for a command that ignores SIGTERM, and job_list right after shows it killed', async () => {
  const command = "trap '' TERM; sleep 100";
  const result = await runJson(
    {
      rules: [
        {
          when: '^start and stop$',
          steps: [
            { tools: [backgroundBash(command)] },
            { tools: [{ name: 'job_kill', arguments: { job_id: 'bash-1' } }] },
            { tools: [{ name: 'job_list' }] },
            { reply: 'stopped it' },
          ],
        },
      ],
    },
    'start and stop',
  );
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.elapsedMs < 20_000, `the run took ${result.elapsedMs} ms`);
  assert.deepEqual(toolResults(result.lines, 'job_kill'), [
    'bash-1 has stopped. [status: killed: stopped on request]',
  ]);
  const listed = toolResults(result.lines, 'job_list');
  assert.equal(listed.length, 1);
  assert.match(
    listed[0] ?? '',
    /^bash-1 {2}killed: stopped on request {2}\d+s {2}trap '' TERM; sleep 100$/,
  );
  await noneLeft(result.workspace, /^sleep 100$/);
  const ends = dataOf(rootSession(result.home), 'job/end');
  assert.deepEqual(
    ends.map((end) => [end.jobId, end.status]),
    [['bash-1', 'killed']],
  );
  const userMessages = dataOf(rootSession(result.home), 'user/message');
  assert.equal(userMessages.length, 1, 'job_kill reported the end: no notice turn follows');
});

test('loom run: a background subagent answers in one job notice that wakes the idle parent', async () => {
  const result = await runJson(
    {
      rules: [
        {
          when: '^delegate in the background$',
          steps: [
            {
              tools: [
                {
                  name: 'subagent',
                  arguments: {
                    description: 'expert',
                    prompt: 'what is six times seven?',
                    run_in_background: true,
                  },
                },
              ],
            },
            { reply: 'waiting for the expert' },
          ],
        },
        // The child answers only once the parent's first turn has ended (it is idle then).
        {
          when: 'six times seven',
          steps: [
            {
              tools: [
                {
                  name: 'bash',
                  arguments: {
                    command: `until grep -qs '"type":"turn/end"' "$LOOM_HOME"/sessions/*.jsonl; do sleep 0.02; done`,
                  },
                },
              ],
            },
            { reply: 'forty-two' },
          ],
        },
        { when: '^\\[job subagent-1 completed\\]', reply: 'the expert said: {{prompt}}' },
      ],
    },
    'delegate in the background',
    // The child's command reads the session log to wait for the parent's turn to end; in the
    // sandbox $LOOM_HOME is hidden, and it would wait out bash's whole time limit instead.
    (home) => writeFileSync(join(home, 'config.yaml'), 'sandbox:\n  mode: off\n'),
  );
  assert.equal(result.code, 0, result.stderr);
  const [started] = toolResults(result.lines, 'subagent');
  assert.match(
    started ?? '',
    /^Started subagent \S+ \(expert\) in the background as job subagent-1/,
  );
  const root = rootSession(result.home);
  const child = sessions(result.home).find((session) => session.header.delegationDepth === 1);
  assert.ok(child, 'the subagent has a session');
  const [waited] = dataOf(child, 'tool/result');
  assert.equal(waited?.isError, false, `the child saw the parent's turn end: ${waited?.content}`);
  const messages = dataOf(root, 'user/message');
  assert.deepEqual(
    messages.map((message) => [message.delivery, message.source ?? 'human']),
    [
      ['followup', 'human'],
      ['followup', 'job'],
    ],
  );
  assert.match(messages[1]?.text ?? '', /^\[job subagent-1 completed\] expert\nforty-two/);
  const turns = dataOf(root, 'turn/end');
  assert.equal(turns.length, 2);
  const answers = dataOf(root, 'assistant/message').map((message) => message.text);
  assert.match(
    answers.at(-1) ?? '',
    /^the expert said: \[job subagent-1 completed\] expert\nforty-two/,
  );
  assert.deepEqual(
    dataOf(root, 'job/end').map((end) => [end.jobId, end.status]),
    [['subagent-1', 'completed']],
  );
  for (const session of sessions(result.home)) {
    assert.deepEqual(checkSessionInvariants(session.events), []);
  }
});

test('loom run: a bash job still running at the end is killed and logged before the run exits', async () => {
  const result = await runJson(
    {
      rules: [
        {
          when: '^leave it running$',
          steps: [{ tools: [backgroundBash('sleep 30')] }, { reply: 'left it running' }],
        },
      ],
    },
    'leave it running',
  );
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.elapsedMs < 20_000, `the run took ${result.elapsedMs} ms`);
  await noneLeft(result.workspace, /^sleep 30$/);
  const root = rootSession(result.home);
  const [end] = dataOf(root, 'job/end');
  assert.equal(end?.jobId, 'bash-1');
  assert.equal(end?.status, 'killed');
  assert.equal(end?.reason, 'loom run is exiting');
  assert.equal(dataOf(root, 'turn/end').length, 1, 'the kill woke no one');
  assert.equal(result.lines.at(-1)?.type, 'job/end');
});

test('loom run: jobs.maxPerOwner from config caps background jobs', async () => {
  const result = await runJson(
    {
      rules: [
        {
          when: '^two jobs$',
          steps: [
            { tools: [backgroundBash('sleep 30'), backgroundBash('sleep 31')] },
            { reply: 'tried' },
          ],
        },
      ],
    },
    'two jobs',
    (home) => writeFileSync(join(home, 'config.yaml'), 'jobs:\n  maxPerOwner: 1\n'),
  );
  assert.equal(result.code, 0, result.stderr);
  const refused = result.lines.filter(
    (line) => line.type === 'tool/result' && line.data.isError === true,
  );
  assert.equal(refused.length, 1);
  assert.equal(refused[0]?.data.errorCode, 'JOB_CAP');
  await noneLeft(result.workspace, /^sleep 3[01]$/);
});

test('loom run: SIGINT kills the background jobs too and exits 130', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder('loom-jobs-workspace-');
  const file = writeScriptedModel(home, {
    rules: [
      {
        when: '^start then hang$',
        steps: [{ tools: [backgroundBash('sleep 30')] }, { hang: true }],
      },
    ],
  });
  const run = startLoom(
    ['run', '--json', '--model', `scripted:${file}`, '--cwd', workspace, 'start then hang'],
    { home },
  );
  await run.waitForLine(/"type":"job\/start"/);
  await run.waitForLine(/"type":"request\/header".*"step":2/);
  run.child.kill('SIGINT');
  const { code } = await run.exited;
  assert.equal(code, 130);
  await noneLeft(workspace, /^sleep 30$/);
  const root = rootSession(home);
  assert.deepEqual(
    dataOf(root, 'job/end').map((end) => [end.jobId, end.status, end.reason]),
    [['bash-1', 'killed', 'interrupted by the user']],
  );
  assert.equal(root.events.at(-1)?.type, 'turn/end');
});
