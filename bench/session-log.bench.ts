/**
 * Session log throughput: how fast events can be appended (batched writes, then one flush) and
 * how long a long session takes to load. Measures only; it never asserts. Works in a temporary
 * folder that it always removes.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { deriveMessages } from '../src/core/messages.js';
import { loadSessionFile } from '../src/core/session-load.js';
import { SessionLog } from '../src/core/session-log.js';
import type { BenchRow } from './run.js';

const APPEND_COUNT = 200_000;
const CREATE_COUNT = 500;
const LOAD_EVENT_COUNT = 100_000;
const LOAD_RUNS = 3;
const usage = { input: 1200, output: 80 };

function appendRate(directory: string): number {
  const log = SessionLog.create({ directory, sessionId: 'append' });
  const started = performance.now();
  for (let index = 0; index < APPEND_COUNT; index++) {
    log.append('assistant/chunk', {
      turnId: 'turn-1',
      step: 1,
      kind: 'text',
      text: `token ${index} `,
    });
  }
  log.flush();
  const seconds = (performance.now() - started) / 1000;
  log.close();
  return Math.round(APPEND_COUNT / seconds);
}

/** Milliseconds to create a session (lock, header linked into place), append, flush and close. */
function createAndClose(directory: string): number {
  const folder = join(directory, 'created');
  const started = performance.now();
  for (let index = 0; index < CREATE_COUNT; index++) {
    const log = SessionLog.create({ directory: folder });
    log.append('user/message', { text: 'hello', delivery: 'followup', turnId: 'turn-1' });
    log.flush();
    log.close();
  }
  return (performance.now() - started) / CREATE_COUNT;
}

/** One turn of two steps: a tool round trip, then the answer streamed in chunks. */
function appendTurn(log: SessionLog, turn: number): void {
  const turnId = `turn-${turn}`;
  log.append('turn/start', { turnId });
  log.append('user/message', {
    text: `please look at file ${turn}.ts`,
    delivery: 'followup',
    turnId,
  });
  for (const step of [1, 2]) {
    log.append('step/start', { turnId, step });
    log.append('request/header', {
      turnId,
      step,
      model: 'scripted:bench',
      system: 'You are Loom.',
      tools: [],
    });
    const text = step === 1 ? '' : 'The file looks fine; nothing to change.';
    for (let chunk = 0; chunk < 6; chunk++) {
      log.append('assistant/chunk', { turnId, step, kind: 'text', text: `part ${chunk} ` });
    }
    const toolCalls =
      step === 1
        ? [{ id: `call-${turn}`, name: 'read_file', arguments: { path: `${turn}.ts` } }]
        : [];
    const finishReason = step === 1 ? 'tool-calls' : 'stop';
    log.append('assistant/message', {
      turnId,
      step,
      text,
      toolCalls,
      finishReason,
      usage,
      model: 'scripted:bench',
      attempts: 1,
    });
    for (const call of toolCalls) {
      log.append('tool/call', {
        turnId,
        step,
        callId: call.id,
        name: call.name,
        arguments: call.arguments,
      });
      const content = `export const value${turn} = ${turn};\n`.repeat(8);
      log.append('tool/result', {
        turnId,
        step,
        callId: call.id,
        name: call.name,
        content,
        isError: false,
      });
    }
    log.append('step/end', { turnId, step, finishReason, usage });
  }
  log.append('turn/end', { turnId, reason: 'completed', usage, steps: 2 });
}

function writeLongSession(directory: string): string {
  const log = SessionLog.create({ directory, sessionId: 'long' });
  for (let turn = 1; log.lastSeq < LOAD_EVENT_COUNT; turn++) appendTurn(log, turn);
  log.close();
  return log.path;
}

/** Loading the file and deriving the model's messages from it, as resuming a session does. */
function loadMilliseconds(path: string): number {
  deriveMessages(loadSessionFile(path).events);
  const timings: number[] = [];
  for (let run = 0; run < LOAD_RUNS; run++) {
    const started = performance.now();
    deriveMessages(loadSessionFile(path).events);
    timings.push(performance.now() - started);
  }
  timings.sort((left, right) => left - right);
  return timings[Math.floor(LOAD_RUNS / 2)] ?? 0;
}

export default async function sessionLogBench(): Promise<BenchRow[]> {
  const directory = mkdtempSync(join(tmpdir(), 'loom-bench-session-'));
  try {
    const rate = appendRate(directory);
    const create = createAndClose(directory);
    const path = writeLongSession(directory);
    const loadTime = loadMilliseconds(path);
    const { events } = loadSessionFile(path);
    return [
      {
        name: 'session log: append + flush, 200k chunk events',
        value: rate,
        unit: 'events/s',
        target: '>= 100000 /s',
        ok: rate >= 100_000,
      },
      {
        name: `session log: create, one append, flush and close (${CREATE_COUNT} in a row)`,
        value: Math.round(create * 1000) / 1000,
        unit: 'ms',
      },
      {
        name: `session load + derive messages: ${events.length} events, ${(statSync(path).size / 1024 / 1024).toFixed(1)} MiB (median of ${LOAD_RUNS})`,
        value: Math.round(loadTime),
        unit: 'ms',
        target: '< 1000 ms',
        ok: loadTime < 1000,
      },
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
