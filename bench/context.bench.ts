/**
 * Pruning cost (issue 32: "pruning cost for a 10,000-event session (< 50 ms)"): a session of
 * 2,000 steps that each read a 2 KB file (10,000 events), over a 200k-token window it is far
 * past, sized and pruned by a fresh context tracker as its next request is prepared (the first
 * request of a reopened session: scan, size, choose, stub); and the next request's preparation
 * once that tracker is warm. And the prompt tokens a 30-step session reading a 2 KB file a step
 * sends with pruning (a 16k-token window) and without (no context layer), as the scripted model
 * reports them. Measures only; never asserts. Works in a temporary folder that it
 * always removes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { derivedWithOrigins } from '../src/context/compacted-view.js';
import { ContextTracker } from '../src/context/context-tracker.js';
import { DEFAULT_CONTEXT_SETTINGS } from '../src/context/contract.js';
import { installContext } from '../src/context/install.js';
import { Context } from '../src/core/context.js';
import type { ModelViewInput } from '../src/core/model-view.js';
import { AgentRuntime } from '../src/core/runtime.js';
import type { SessionEvent } from '../src/core/session-events.js';
import { SessionLog } from '../src/core/session-log.js';
import type { ModelClient } from '../src/llm/contract.js';
import { createScriptedModel } from '../src/llm/scripted-model.js';
import { builtinTools } from '../src/tools/index.js';
import type { BenchRow } from './run.js';

const STEPS = 2_000;
const RUNS = 9;
const TARGET_MS = 50;
const WINDOW = 200_000;
const FILE = `${'const value = compute(input, options); // a line of source\n'.repeat(34)}`;

const model: ModelClient = {
  id: 'bench:pruning',
  limits: { context: WINDOW },
  async *stream() {},
};

function appendStep(log: SessionLog, turnId: string, step: number): void {
  const callId = `call_${step}`;
  const usage = { input: 0, output: 20 };
  log.append('step/start', { turnId, step });
  const toolCalls = [{ id: callId, name: 'read_file', arguments: { path: `src/file-${step}.ts` } }];
  log.append('assistant/message', {
    turnId,
    step,
    text: '',
    toolCalls,
    finishReason: 'tool-calls',
    usage,
    model: model.id,
    attempts: 1,
  });
  log.append('tool/call', { turnId, step, callId, name: 'read_file', arguments: {} });
  log.append('tool/result', {
    turnId,
    step,
    callId,
    name: 'read_file',
    content: FILE,
    isError: false,
  });
  log.append('step/end', { turnId, step, finishReason: 'tool-calls', usage });
}

function sessionEvents(directory: string): readonly SessionEvent[] {
  const log = SessionLog.create({ directory, sessionId: 'pruning-source' });
  log.append('turn/start', { turnId: 'turn-1' });
  log.append('user/message', { text: 'read every file', delivery: 'followup', turnId: 'turn-1' });
  for (let step = 1; step <= STEPS; step++) appendStep(log, 'turn-1', step);
  const events = [...log.events];
  log.close();
  return events;
}

const SESSION_STEPS = 30;

/**
 * How much of each request repeats the previous one's start: `cached`, the share of the previous
 * request's bytes that the next one sends again (what a provider's prefix cache holds and can
 * reuse), and `sent`, the share of all bytes sent after the first request that repeat it (each
 * step's new messages count against it).
 */
function prefixShares(requests: readonly string[]): { cached: number; sent: number } {
  let repeated = 0;
  let previousBytes = 0;
  let sentBytes = 0;
  for (let index = 1; index < requests.length; index++) {
    const previous = requests[index - 1] as string;
    const current = requests[index] as string;
    let common = 0;
    while (common < previous.length && previous[common] === current[common]) common++;
    // The serialization closes the message list: its last two characters are never a prefix.
    repeated += Math.min(common + 2, previous.length);
    previousBytes += previous.length;
    sentBytes += current.length;
  }
  return { cached: repeated / previousBytes, sent: repeated / sentBytes };
}

/**
 * The prompt tokens the model reported over a session of `SESSION_STEPS` reads, in `folder`, and
 * the share of request bytes that repeat the previous request's prefix (what a provider's
 * automatic prefix cache can reuse).
 */
async function tokensSent(
  folder: string,
  pruning: boolean,
): Promise<{ tokens: number; shares: { cached: number; sent: number } }> {
  for (let step = 1; step <= SESSION_STEPS; step++)
    writeFileSync(join(folder, `f${step}.ts`), FILE);
  const reads = Array.from({ length: SESSION_STEPS }, (_, index) => ({
    tools: [{ name: 'read_file', arguments: { path: `f${index + 1}.ts` } }],
  }));
  const scripted = createScriptedModel({
    rules: [{ when: 'read', steps: [...reads, { reply: 'done' }] }],
  });
  const requests: string[] = [];
  const windowed: ModelClient = {
    id: scripted.id,
    limits: { context: 16_000 },
    stream: (request) => {
      const { system, tools, messages } = request;
      requests.push(JSON.stringify({ system, tools, messages }));
      return scripted.stream(request);
    },
  };
  const runtime = new AgentRuntime({
    root: new Context(),
    home: folder,
    cwd: folder,
    resolveModel: () => windowed,
  });
  const tools = builtinTools({ workspace: { root: folder, extraRoots: [] } });
  runtime.offerTools(tools);
  if (pruning) installContext(runtime);
  const handle = runtime.start();
  try {
    await handle.agent.prompt('read every file');
    let sent = 0;
    for (const event of handle.log.events) {
      if (event.type === 'assistant/message')
        sent += (event.data as { usage: { input: number } }).usage.input;
    }
    return { tokens: sent, shares: prefixShares(requests) };
  } finally {
    handle.close();
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

export default async function bench(): Promise<BenchRow[]> {
  const directory = mkdtempSync(join(tmpdir(), 'loom-bench-context-'));
  try {
    const events = sessionEvents(directory);
    const cold: number[] = [];
    const warm: number[] = [];
    let pruned = 0;
    for (let run = 0; run < RUNS; run++) {
      const log = SessionLog.create({ directory, sessionId: `pruning-${run}`, seed: events });
      const tracker = new ContextTracker({
        log,
        context: new Context(),
        settings: DEFAULT_CONTEXT_SETTINGS,
      });
      const input = (origins: number[]): ModelViewInput => ({
        agentId: log.header.sessionId,
        turnId: 'turn-1',
        log,
        model,
        system: 'You are Loom.',
        tools: [],
        reason: 'request',
        origins,
        signal: new AbortController().signal,
      });
      const derived = derivedWithOrigins(log.events);
      let started = performance.now();
      await tracker.prepare(input(derived.origins), derived.messages);
      cold.push(performance.now() - started);
      const compaction = log.events.findLast((event) => event.type === 'context/compact');
      pruned = (compaction?.data as { pruned: string[] } | undefined)?.pruned.length ?? 0;
      appendStep(log, 'turn-1', STEPS + 1);
      const next = derivedWithOrigins(log.events);
      started = performance.now();
      await tracker.prepare(input(next.origins), next.messages);
      warm.push(performance.now() - started);
      log.close();
    }
    const withPruning = await tokensSent(mkdtempSync(join(directory, 'with-')), true);
    const without = await tokensSent(mkdtempSync(join(directory, 'without-')), false);
    const coldMs = median(cold);
    const warmMs = median(warm);
    return [
      {
        name: `context: prune a ${events.length}-event session (${pruned} results stubbed)`,
        value: coldMs,
        unit: 'ms',
        target: `< ${TARGET_MS} ms`,
        ok: coldMs < TARGET_MS,
      },
      {
        name: `context: the next request of that session (warm tracker)`,
        value: warmMs,
        unit: 'ms',
      },
      {
        name: `context: prompt tokens sent, ${SESSION_STEPS} steps of 2 KB reads, with pruning (16k window)`,
        value: withPruning.tokens,
        unit: 'tokens',
      },
      {
        name: `context: prompt tokens sent, the same session without pruning`,
        value: without.tokens,
        unit: 'tokens',
      },
      {
        name: `context: of each request's bytes, the share the next request repeats (the cached prefix), ${SESSION_STEPS} steps with pruning`,
        value: Math.round(withPruning.shares.cached * 1000) / 10,
        unit: '%',
        target: '>= 95 %',
        ok: withPruning.shares.cached >= 0.95,
      },
      {
        name: `context: of all bytes sent after the first request, the share repeating the previous request`,
        value: Math.round(withPruning.shares.sent * 1000) / 10,
        unit: '%',
      },
    ];
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
