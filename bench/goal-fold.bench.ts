/**
 * Goal fold cost (issue 10: "folding a session with 10,000 goal rounds in under 100 ms"): writes
 * a session of 10,000 goal rounds (each a turn with its round message, a tool call and the
 * model's report, plus human pauses and resumes along the way), then times folding the loaded
 * events, and loading the file and folding it. Measures only; never asserts. Works in a temporary
 * folder that it always removes.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { SessionEvent } from '../src/core/session-events.js';
import { loadSessionFile } from '../src/core/session-load.js';
import { SessionLog } from '../src/core/session-log.js';
import type { GoalChangeEvent } from '../src/goal/contract.js';
import { foldGoal } from '../src/goal/fold.js';
import { roundPrompt } from '../src/goal/goal-text.js';
import type { BenchRow } from './run.js';

const ROUNDS = 10_000;
/** A human pauses and resumes the goal this often (in rounds). */
const PAUSE_EVERY = 500;
const FOLD_RUNS = 21;
const LOAD_RUNS = 9;
const TARGET_MS = 100;
const usage = { input: 1800, output: 120 };
const OBJECTIVE = 'migrate every module under src/ to ESM and keep npm test green';

/** One turn: its start, the messages in it, the model's answer, its end. */
function appendTurn(
  log: SessionLog,
  message: { text: string; source?: string; round?: number },
  answer: string,
  tool?: { name: string; arguments: Record<string, unknown>; result: string },
  change?: GoalChangeEvent,
): void {
  const turnId = `turn-${log.lastSeq + 1}`;
  log.append('turn/start', { turnId });
  log.append('user/message', { ...message, delivery: 'followup', turnId });
  let steps = 1;
  if (tool) {
    log.append('assistant/message', {
      turnId,
      step: 1,
      text: '',
      toolCalls: [{ id: `call-${turnId}`, name: tool.name, arguments: tool.arguments }],
      finishReason: 'tool-calls',
      usage,
      model: 'scripted:bench',
      attempts: 1,
    });
    log.append('tool/call', {
      turnId,
      step: 1,
      callId: `call-${turnId}`,
      name: tool.name,
      arguments: tool.arguments,
    });
    if (change) log.append('goal/change', change);
    log.append('tool/result', {
      turnId,
      step: 1,
      callId: `call-${turnId}`,
      name: tool.name,
      content: tool.result,
      isError: false,
    });
    steps = 2;
  }
  log.append('assistant/message', {
    turnId,
    step: steps,
    text: answer,
    toolCalls: [],
    finishReason: 'stop',
    usage,
    model: 'scripted:bench',
    attempts: 1,
  });
  log.append('turn/end', { turnId, reason: 'completed', usage, steps });
}

function writeGoalSession(directory: string): string {
  const log = SessionLog.create({ directory, sessionId: 'goal-rounds' });
  let revision = 1;
  const goal = {
    id: 'goal-1',
    objective: OBJECTIVE,
    phase: 'active' as const,
    revision,
    roundsStarted: 0,
    maxRounds: ROUNDS,
  };
  appendTurn(
    log,
    { text: `keep working until you ${OBJECTIVE}` },
    'Goal set.',
    { name: 'create_goal', arguments: { objective: OBJECTIVE, max_rounds: ROUNDS }, result: '{}' },
    {
      goalId: 'goal-1',
      revision,
      action: 'create',
      phase: 'active',
      objective: OBJECTIVE,
      maxRounds: ROUNDS,
      by: 'model',
    },
  );
  let report = '';
  for (let round = 1; round <= ROUNDS; round++) {
    const text = roundPrompt({ ...goal, revision, roundsStarted: round - 1 }, round, report);
    report = `Round ${round}: converted src/module-${round}.ts to ESM; npm test: ${round} passing, ${ROUNDS - round} to go.`;
    if (round === ROUNDS) {
      const args = { goal_id: 'goal-1', revision, action: 'complete', reason: 'npm test green' };
      revision += 1;
      appendTurn(
        log,
        { text, source: 'goal', round },
        report,
        { name: 'update_goal', arguments: args, result: '{}' },
        {
          goalId: 'goal-1',
          revision,
          action: 'complete',
          phase: 'complete',
          reason: 'npm test green',
          by: 'round',
        },
      );
      break;
    }
    appendTurn(log, { text, source: 'goal', round }, report);
    if (round % PAUSE_EVERY === 0) {
      for (const action of ['pause', 'resume'] as const) {
        const args = { goal_id: 'goal-1', revision, action };
        revision += 1;
        appendTurn(
          log,
          { text: `${action} the goal` },
          `The goal is ${action === 'pause' ? 'paused' : 'active again'}.`,
          { name: 'update_goal', arguments: args, result: '{}' },
          {
            goalId: 'goal-1',
            revision,
            action,
            phase: action === 'pause' ? 'paused' : 'active',
            by: 'model',
          },
        );
      }
    }
  }
  log.close();
  return log.path;
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? 0;
}

/** Median and 95th percentile of `runs` timings of `work`, after one warm-up run. */
function time(runs: number, work: () => void): { median: number; p95: number } {
  work();
  const timings: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    work();
    timings.push(performance.now() - started);
  }
  timings.sort((left, right) => left - right);
  return { median: percentile(timings, 0.5), p95: percentile(timings, 0.95) };
}

const rounded = (value: number) => Math.round(value * 100) / 100;

function check(events: readonly SessionEvent[]): void {
  const goal = foldGoal(events).goal;
  if (goal?.phase !== 'complete' || goal.roundsStarted !== ROUNDS) {
    throw new Error(`the bench session folds to ${JSON.stringify(goal)}, not ${ROUNDS} rounds`);
  }
}

export default async function goalFoldBench(): Promise<BenchRow[]> {
  const directory = mkdtempSync(join(tmpdir(), 'loom-bench-goal-'));
  try {
    const path = writeGoalSession(directory);
    const { events } = loadSessionFile(path);
    check(events);
    const fold = time(FOLD_RUNS, () => foldGoal(events));
    const load = time(LOAD_RUNS, () => foldGoal(loadSessionFile(path).events));
    const size = `${events.length} events, ${(statSync(path).size / 1024 / 1024).toFixed(1)} MiB`;
    const row = (name: string, value: number, target?: number): BenchRow => ({
      name,
      value: rounded(value),
      unit: 'ms',
      ...(target === undefined ? {} : { target: `< ${target} ms`, ok: value < target }),
    });
    return [
      row(
        `goal fold: ${ROUNDS} rounds, loaded events (${size}), median of ${FOLD_RUNS}`,
        fold.median,
        TARGET_MS,
      ),
      row(`goal fold: ${ROUNDS} rounds, loaded events, p95 of ${FOLD_RUNS}`, fold.p95, TARGET_MS),
      row(`goal load + fold: ${ROUNDS} rounds from the file, median of ${LOAD_RUNS}`, load.median),
      row(`goal load + fold: ${ROUNDS} rounds from the file, p95 of ${LOAD_RUNS}`, load.p95),
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
