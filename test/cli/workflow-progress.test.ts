import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createProgressView, formatElapsed, liveBlock } from '../../src/cli/workflow-progress.js';
import { WorkflowProgressState } from '../../src/cli/workflow-progress-state.js';
import type { WorkflowEventRecord, WorkflowResult } from '../../src/workflow/contract.js';
import { formatTokens } from '../../src/workflow/run-events.js';

const ESC = '\u001b';
const colourCodes = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');
const stripColour = (line: string) => line.replace(colourCodes, '');

const runId = 'run-1';
const time = 1764460000000;

const events: WorkflowEventRecord[] = [
  {
    type: 'workflow/start',
    runId,
    time,
    name: 'review',
    description: 'Review',
    phases: ['list', 'audit', 'verify'],
    slots: 8,
  },
  { type: 'workflow/phase', runId, time, title: 'list' },
  { type: 'workflow/agent-start', runId, time, seq: 1, label: 'list files', phase: 'list' },
  {
    type: 'workflow/agent-end',
    runId,
    time,
    seq: 1,
    label: 'list files',
    phase: 'list',
    outcome: 'completed',
    usage: { input: 1200, output: 300 },
  },
  { type: 'workflow/log', runId, time, message: 'found 3 files' },
  { type: 'workflow/phase', runId, time, title: 'audit' },
  { type: 'workflow/agent-start', runId, time, seq: 2, label: 'audit a.ts', phase: 'audit' },
  { type: 'workflow/agent-start', runId, time, seq: 3, label: 'audit b.ts', phase: 'audit' },
  {
    type: 'workflow/agent-end',
    runId,
    time,
    seq: 3,
    label: 'audit b.ts',
    phase: 'audit',
    outcome: 'failed',
    reason: 'upstream 500',
    usage: { input: 10, output: 0 },
  },
];

const result: WorkflowResult = {
  runId,
  name: 'review',
  stopReason: 'completed',
  value: null,
  agentsStarted: 3,
  failures: [],
  usage: { input: 0, output: 0 },
  agents: [],
};

function capture(isTTY: boolean) {
  const writes: string[] = [];
  return {
    writes,
    output: { isTTY, columns: 80, write: (text: string) => writes.push(text) },
  };
}

test('progress state folds phases, agents, tokens and logs from the events', () => {
  const state = new WorkflowProgressState();
  for (const event of events) state.apply(event);
  assert.equal(state.name, 'review');
  assert.equal(state.phase, 'audit');
  assert.deepEqual(state.counts, { running: 1, completed: 1, failed: 1, cancelled: 0 });
  assert.deepEqual(state.usage, { input: 1210, output: 300 });
  assert.deepEqual(state.logs, ['found 3 files']);
  assert.deepEqual(state.phaseList(), [
    { title: 'list', status: 'done' },
    { title: 'audit', status: 'current' },
    { title: 'verify', status: 'pending' },
  ]);
  assert.deepEqual(state.runningLabels(3), { shown: ['audit a.ts'], more: 0 });
});

test('once the run completed no phase is in progress; a run that stopped keeps its phase marked', () => {
  const end = (stopReason: 'completed' | 'error'): WorkflowEventRecord => ({
    type: 'workflow/end',
    runId,
    time,
    stopReason,
    agentsStarted: 3,
  });
  const completed = new WorkflowProgressState();
  for (const event of [...events, end('completed')]) completed.apply(event);
  assert.deepEqual(completed.phaseList(), [
    { title: 'list', status: 'done' },
    { title: 'audit', status: 'done' },
    { title: 'verify', status: 'pending' },
  ]);
  const stopped = new WorkflowProgressState();
  for (const event of [...events, end('error')]) stopped.apply(event);
  assert.equal(stopped.phaseList()[1]?.status, 'current');
});

test('the live block shows the name, phase list, counts of the slots, tokens, running labels and logs', () => {
  const state = new WorkflowProgressState();
  for (const event of events) state.apply(event);
  const text = liveBlock(state, 2500, 200).map((line) => stripColour(line));
  assert.equal(text[0], '◆ workflow review · audit · 2.5s');
  assert.match(text[1] ?? '', /✓ list {3}▸ audit {3}· verify/);
  assert.match(
    text[2] ?? '',
    /^ {2}agents {2}1 running of 8 slots · 1 done · 1 failed · 0 cancelled {3}tokens 1\.2k in \/ 300 out/,
  );
  assert.match(text[3] ?? '', /running audit a\.ts$/);
  assert.match(text[4] ?? '', /log {5}found 3 files/);
  const narrow = liveBlock(state, 0, 30);
  for (const line of narrow) assert.ok(stripColour(line).length <= 30);
});

/** A redraw timer the test drives by hand; it records each start and stop. */
function manualTimer() {
  const timers: Array<{ intervalMs: number; tick: () => void; stopped: boolean }> = [];
  return {
    timers,
    redrawTimer: {
      start(tick: () => void, intervalMs: number) {
        const timer = { intervalMs, tick, stopped: false };
        timers.push(timer);
        return {
          stop: () => {
            timer.stopped = true;
          },
        };
      },
    },
  };
}

test('on a terminal the block is redrawn in place by the timer, which stops at the end', () => {
  const { writes, output } = capture(true);
  const { timers, redrawTimer } = manualTimer();
  let clock = 0;
  const view = createProgressView({ output, intervalMs: 5, now: () => clock, redrawTimer });
  assert.equal(timers.length, 1);
  assert.equal(timers[0]?.intervalMs, 5);
  const [first, ...rest] = events;
  view.record(first as WorkflowEventRecord);
  assert.equal(writes.length, 1, 'the first event draws the block at once');
  for (const event of rest) view.record(event);
  assert.equal(writes.length, 1, 'later events only mark the block for the next tick');
  timers[0]?.tick();
  assert.equal(writes.length, 2, 'a tick redraws the changed block');
  assert.match(writes[1] ?? '', new RegExp(`^${ESC}\\[\\d+A\r`), 'over the previous block');
  assert.ok(writes[1]?.includes(`${ESC}[2K`), 'clearing each line it redraws');
  timers[0]?.tick();
  assert.equal(writes.length, 2, 'an unchanged block is not redrawn within a second');
  clock = 1500;
  timers[0]?.tick();
  assert.equal(writes.length, 3, 'the elapsed time is redrawn once a second');
  view.finish(result);
  assert.equal(timers[0]?.stopped, true, 'finish stops the timer');
  assert.match(
    writes.join(''),
    /workflow review completed in 1\.5s: 3 agents \(1 done, 1 failed, 0 cancelled\)/,
  );
  const count = writes.length;
  view.record(events[1] as WorkflowEventRecord);
  view.finish(result);
  assert.equal(writes.length, count, 'nothing is drawn after finish');
  assert.deepEqual(view.tokens(), { input: 1210, output: 300 });
});

test('abandon stops the timer and wipes the block; off a terminal no timer starts', () => {
  const { writes, output } = capture(true);
  const { timers, redrawTimer } = manualTimer();
  const view = createProgressView({ output, now: () => 0, redrawTimer });
  view.record(events[0] as WorkflowEventRecord);
  view.abandon();
  assert.equal(timers[0]?.stopped, true);
  const drawnLines = writes[0]?.split(`${ESC}[2K`).length ?? 1;
  assert.equal(writes.at(-1), `${ESC}[${drawnLines - 1}A\r${ESC}[J`);
  const plain = manualTimer();
  createProgressView({ output: capture(false).output, redrawTimer: plain.redrawTimer });
  assert.equal(plain.timers.length, 0);
});

test('off a terminal every event is one plain line with no control codes', () => {
  const { writes, output } = capture(false);
  const view = createProgressView({ output, now: () => 0 });
  for (const event of events) view.record(event);
  view.notice('cancelling…');
  view.finish({ ...result, stopReason: 'error', error: { code: 'SCRIPT_ERROR', message: 'boom' } });
  assert.deepEqual(writes.join('').trimEnd().split('\n'), [
    'workflow review: Review (phases: list, audit, verify; 8 slots)',
    'phase: list',
    'agent #1 started: list files [list]',
    'agent #1 completed: list files (1.2k in / 300 out)',
    'log: found 3 files',
    'phase: audit',
    'agent #2 started: audit a.ts [audit]',
    'agent #3 started: audit b.ts [audit]',
    'agent #3 failed: audit b.ts (10 in / 0 out): upstream 500',
    'cancelling…',
    'workflow review error in 0.0s: 3 agents (1 done, 1 failed, 0 cancelled), tokens 1.2k in / 300 out: SCRIPT_ERROR: boom',
  ]);
});

test('off a terminal the lines of one turn of the loop are written together, before anything else', async () => {
  const { writes, output } = capture(false);
  const view = createProgressView({ output, now: () => 0 });
  for (const event of events.slice(0, 3)) view.record(event);
  assert.deepEqual(writes, [], 'nothing is written inside the turn');
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.deepEqual(writes, [
    'workflow review: Review (phases: list, audit, verify; 8 slots)\nphase: list\nagent #1 started: list files [list]\n',
  ]);
  view.record(events[3] as WorkflowEventRecord);
  view.notice('cancelling…');
  assert.deepEqual(writes.slice(1), [
    'agent #1 completed: list files (1.2k in / 300 out)\n',
    'cancelling…\n',
  ]);
  view.record(events[4] as WorkflowEventRecord);
  view.finish(result);
  assert.equal(writes[3], 'log: found 3 files\n', 'finish writes what is pending first');
  assert.match(writes[4] ?? '', /^workflow review completed/);
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.equal(writes.length, 5, 'nothing is written twice');
});

test('token and time formats', () => {
  assert.equal(formatTokens(999), '999');
  assert.equal(formatTokens(1234), '1.2k');
  assert.equal(formatTokens(45_600), '46k');
  assert.equal(formatTokens(2_500_000), '2.5M');
  assert.equal(formatElapsed(900), '0.9s');
  assert.equal(formatElapsed(125_000), '2m05s');
});

test('lines and state show a nested run by name, journal hits, and cost when every agent has a price', () => {
  const nested: WorkflowEventRecord[] = [
    { type: 'workflow/start', runId, time, name: 'outer', description: 'Outer', phases: ['go'] },
    { type: 'workflow/phase', runId, time, title: 'go' },
    { type: 'workflow/phase', runId, time, title: 'inner step', workflow: 'inner' },
    { type: 'workflow/log', runId, time, message: 'hello', workflow: 'inner' },
    {
      type: 'workflow/agent-start',
      runId,
      time,
      seq: 1,
      label: 'ask',
      phase: 'inner step',
      workflow: 'inner',
    },
    {
      type: 'workflow/agent-end',
      runId,
      time,
      seq: 1,
      label: 'ask',
      phase: 'inner step',
      outcome: 'completed',
      usage: { input: 1000, output: 500 },
      costUsd: 0.0105,
      workflow: 'inner',
    },
    {
      type: 'workflow/agent-start',
      runId,
      time,
      seq: 2,
      label: 'old',
      phase: 'go',
      journaled: true,
    },
    {
      type: 'workflow/agent-end',
      runId,
      time,
      seq: 2,
      label: 'old',
      phase: 'go',
      outcome: 'completed',
      usage: { input: 0, output: 0 },
      journaled: true,
    },
  ];
  const { writes, output } = capture(false);
  const view = createProgressView({ output, now: () => 0 });
  for (const event of nested) view.record(event);
  view.finish({ ...result, name: 'outer', agentsStarted: 2, costUsd: 0.0105 });
  assert.deepEqual(writes.join('').trimEnd().split('\n'), [
    'workflow outer: Outer (phases: go)',
    'phase: go',
    '[inner] phase: inner step',
    '[inner] log: hello',
    '[inner] agent #1 started: ask [inner step]',
    '[inner] agent #1 completed: ask (1.0k in / 500 out, $0.0105)',
    'agent #2 started: old [go] (journal)',
    'agent #2 completed: old (0 in / 0 out) (journal)',
    'workflow outer completed in 0.0s: 2 agents (2 done (1 from the journal), 0 failed, 0 cancelled), tokens 1.0k in / 500 out, cost $0.0105',
  ]);
  const state = new WorkflowProgressState();
  for (const event of nested.slice(0, 5)) state.apply(event);
  assert.equal(state.phase, 'go', "a nested run's phase leaves the outer phase list alone");
  assert.equal(state.nestedPhase, '[inner] inner step');
  assert.deepEqual(state.logs, ['[inner] hello']);
  assert.deepEqual(state.runningLabels(3), { shown: ['[inner] ask'], more: 0 });
  assert.match(
    stripColour(liveBlock(state, 0, 200)[0] ?? ''),
    /workflow outer · go › \[inner\] inner step/,
  );
  for (const event of nested.slice(5)) state.apply(event);
  assert.equal(state.costUsd, 0.0105, 'a journal hit with no price leaves the cost known');
  assert.match(
    stripColour(liveBlock(state, 0, 200).join('\n')),
    /2 done \(1 journal\).*500 out · \$0\.0105/,
  );
  state.apply({ ...nested[5], seq: 3, costUsd: undefined } as WorkflowEventRecord);
  assert.equal(state.costUsd, undefined, 'one agent without a price makes the cost unknown');
});

test('on a terminal a run that completed with failed agents ends, after its amber summary, with them and the report and resume commands', () => {
  const { writes, output } = capture(true);
  const { redrawTimer } = manualTimer();
  const view = createProgressView({ output, now: () => 0, redrawTimer });
  for (const event of events) view.record(event);
  view.finish({
    ...result,
    failures: [{ seq: 3, label: 'audit b.ts', outcome: 'failed', reason: 'upstream\n500' }],
  });
  const lines = stripColour(writes.join('')).trimEnd().split('\n');
  assert.deepEqual(lines.slice(-4), [
    'failed agents of run run-1:',
    '  #3 audit b.ts: upstream 500',
    'see the run: loom workflow report run-1',
    'run the failed agents again: loom workflow run --resume run-1',
  ]);
  assert.match(lines.at(-5) ?? '', /workflow review completed with 1 failed agent in /);
  assert.ok(writes.join('').includes(`${ESC}[33mworkflow review completed with`), 'in yellow');
});
