/**
 * The kill soak: 30 `loom run` processes, each SIGKILLed at a different moment (as its session
 * is being created, at its first event, mid-tool, after a random number of events or a random
 * delay), three at a time. Every session that exists must load, hold every event printed with --json before the
 * kill, continue with `loom run --session ID`, and then pass the invariant checker.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { type FSWatcher, mkdirSync, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { type LoomRun, runLoom, startLoom, writeScriptedModel } from './loom-process.js';

const PROCESSES = 30;
const AT_ONCE = 3;

/**
 * Where a kill is aimed: at the first file the run makes in the sessions folder (its lock), at
 * its session file, a random few milliseconds after the first file, at its first printed event,
 * at a tool call, after a random number of events, or after a random delay.
 */
const MOMENTS = [
  'first-file',
  'session-file',
  'creation-jitter',
  'first-event',
  'tool-call',
  'random-events',
  'random-delay',
] as const;
type Moment = (typeof MOMENTS)[number];

/** Moments that come after the session's first printed event, so a session must exist. */
const AFTER_OUTPUT = new Set<Moment>(['first-event', 'tool-call', 'random-events']);

const model = {
  rules: [
    {
      when: 'work (\\d+)',
      steps: [
        { tools: [{ name: 'write_file', arguments: { path: 'f{{1}}.txt', content: 'x{{1}}' } }] },
        {
          tools: [
            { name: 'read_file', arguments: { path: 'f{{1}}.txt' } },
            { name: 'glob', arguments: { pattern: '*.txt' } },
          ],
        },
        { delayMs: 5, reply: 'done {{1}}' },
      ],
    },
  ],
  default: { reply: 'continued: {{prompt}}' },
};

interface Printed {
  sessionId: string;
  type: string;
  seq: number;
  time: number;
  data: unknown;
}

/** Kills `run` at `moment`; resolves once it has exited. */
async function killAt(run: LoomRun, moment: Moment, sessions: string): Promise<void> {
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  const kill = () => run.child.kill('SIGKILL');
  switch (moment) {
    case 'first-file':
      watcher = watch(sessions, kill);
      break;
    case 'creation-jitter':
      watcher = watch(sessions, () => {
        timer ??= setTimeout(kill, randomInt(0, 20));
      });
      break;
    case 'session-file':
      watcher = watch(sessions, (_, name) => {
        if (name?.endsWith('.jsonl')) kill();
      });
      break;
    case 'first-event':
      run.waitForLine(/^\{/).then(kill, () => {});
      break;
    case 'tool-call':
      run.waitForLine(/"type":"tool\/call"/).then(kill, () => {});
      break;
    case 'random-events': {
      const count = randomInt(1, 25);
      run.child.stdout.on('data', () => {
        if (run.stdout().split('\n').length > count) kill();
      });
      break;
    }
    case 'random-delay':
      timer = setTimeout(kill, randomInt(0, 1500));
      break;
  }
  try {
    await run.exited;
  } finally {
    watcher?.close();
    clearTimeout(timer);
  }
}

async function soakOne(index: number, modelPath: string): Promise<{ hadSession: boolean }> {
  const moment = MOMENTS[index % MOMENTS.length] as Moment;
  const home = temporaryFolder('loom-soak-');
  const workspace = temporaryFolder('loom-soak-work-');
  const sessions = join(home, 'sessions');
  mkdirSync(sessions);
  const run = startLoom(
    ['run', '--json', '--model', `scripted:${modelPath}`, '--cwd', workspace, `work ${index}`],
    { home },
  );
  await killAt(run, moment, sessions);
  const where = `process ${index} (killed at ${moment})`;

  const printed = run
    .stdout()
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as Printed);
  const files = readdirSync(sessions).filter((name) => name.endsWith('.jsonl'));
  assert.ok(files.length <= 1, `${where}: ${files.join(', ')}`);
  const file = files[0];
  if (file === undefined) {
    assert.deepEqual(printed, [], `${where}: events were printed but no session exists`);
    assert.ok(!AFTER_OUTPUT.has(moment), `${where}: no session after its output began`);
    return { hadSession: false };
  }
  const path = join(sessions, file);
  const id = file.slice(0, -'.jsonl'.length);
  const stored = new Map(loadSessionFile(path).events.map((event) => [event.seq, event]));
  for (const event of printed) {
    assert.equal(event.sessionId, id, where);
    const onDisk = stored.get(event.seq);
    assert.deepEqual(
      onDisk && { type: onDisk.type, time: onDisk.time, data: onDisk.data },
      { type: event.type, time: event.time, data: event.data },
      `${where}: printed event seq ${event.seq} is not on disk`,
    );
  }

  const continued = await runLoom(
    ['run', '--json', '--model', `scripted:${modelPath}`, '--cwd', workspace, '--session', id],
    { home, input: `carry on ${index}` },
  );
  assert.equal(continued.code, 0, `${where}: ${continued.stderr}`);
  const events = loadSessionFile(path).events;
  assert.deepEqual(checkSessionInvariants(events), [], where);
  const last = events.at(-1);
  assert.deepEqual(
    [last?.type, (last?.data as { reason?: string } | undefined)?.reason],
    ['turn/end', 'completed'],
    where,
  );
  return { hadSession: true };
}

test(`kill soak: ${PROCESSES} loom run processes SIGKILLed at random moments lose nothing`, async (context) => {
  const modelPath = writeScriptedModel(temporaryFolder('loom-soak-model-'), model);
  const indexes = Array.from({ length: PROCESSES }, (_, index) => index);
  const outcomes: Array<{ hadSession: boolean }> = [];
  const lanes = Array.from({ length: AT_ONCE }, async (_, lane) => {
    for (let index = lane; index < PROCESSES; index += AT_ONCE) {
      outcomes[index] = await soakOne(indexes[index] as number, modelPath);
    }
  });
  await Promise.all(lanes);
  assert.equal(outcomes.length, PROCESSES);
  for (const moment of MOMENTS) {
    const killed = outcomes.filter((_, index) => MOMENTS[index % MOMENTS.length] === moment);
    const withSession = killed.filter((outcome) => outcome.hadSession).length;
    context.diagnostic(`${moment}: ${withSession} of ${killed.length} left a session`);
  }
});
