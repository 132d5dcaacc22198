/**
 * The usage ledger behind `/cost` and the footer: tokens per agent of the session's tree from
 * `assistant/message` events, priced per model; a fork's copied events are not counted twice,
 * agents outside the tree are not counted, and a model without a price leaves the cost unknown.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentHandle } from '../../src/core/create-agent.js';
import type { AgentRuntime } from '../../src/core/runtime.js';
import type { SessionEvent, SessionHeader } from '../../src/core/session-events.js';
import { costOf } from '../../src/llm/prices.js';
import { UsageLedger } from '../../src/tui/usage-ledger.js';

let seq = 0;
function event(type: string, data: unknown): SessionEvent {
  return { type, seq: ++seq, time: 0, data } as SessionEvent;
}

function answer(model: string, input: number, output: number): SessionEvent {
  return event('assistant/message', {
    turnId: 't',
    step: 1,
    text: '',
    toolCalls: [],
    finishReason: 'stop',
    usage: { input, output },
    model,
    attempts: 1,
  });
}

interface FakeAgent {
  handle: AgentHandle;
  append(event: SessionEvent): void;
}

function agent(
  header: Partial<SessionHeader> & { sessionId: string },
  events: SessionEvent[] = [],
): FakeAgent {
  const listeners = new Set<(event: SessionEvent) => void>();
  const log = {
    header: {
      version: 1,
      created: '',
      parentSession: null,
      seedLength: 0,
      delegationDepth: 0,
      ...header,
    },
    events,
    onAppend(listener: (event: SessionEvent) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    handle: { log } as unknown as AgentHandle,
    append(added) {
      events.push(added);
      for (const listener of listeners) listener(added);
    },
  };
}

function runtimeOf(): { runtime: AgentRuntime; make(fake: FakeAgent): void } {
  const setups: Array<(handle: AgentHandle) => unknown> = [];
  return {
    runtime: {
      onAgent(setup: (handle: AgentHandle) => unknown) {
        setups.push(setup);
        return () => {};
      },
    } as unknown as AgentRuntime,
    make(fake) {
      for (const setup of setups) setup(fake.handle);
    },
  };
}

const PRICES = { 'openai:big': { input: 10, output: 30 }, 'openai:small': { input: 1, output: 2 } };

test('tokens and cost per agent: the root, a child, a forked child without its copied events', () => {
  const ledger = new UsageLedger(PRICES);
  const { runtime, make } = runtimeOf();
  let changes = 0;
  ledger.follow(runtime, () => changes++);
  const root = agent({ sessionId: 'root' }, [answer('openai:big', 1000, 100)]);
  ledger.reset(root.handle);
  const child = agent({ sessionId: 'child', parentSession: 'root', delegationDepth: 1 });
  make(child);
  child.append(
    event('subagent/descriptor', {
      provider: 'spawn',
      description: 'reviewer',
      continuable: false,
    }),
  );
  child.append(answer('openai:small', 2000, 200));
  const copied = [answer('openai:big', 1000, 100)];
  const fork = agent(
    { sessionId: 'fork', parentSession: 'child', delegationDepth: 2, seedLength: 1 },
    copied,
  );
  make(fork);
  fork.append(answer('openai:small', 10, 1));
  const stranger = agent({ sessionId: 'other', parentSession: 'elsewhere', delegationDepth: 1 });
  make(stranger);
  stranger.append(answer('openai:big', 99, 9));
  ledger.applyRoot(answer('openai:small', 500, 50));
  assert.equal(changes, 2);

  const agents = ledger.agents();
  assert.deepEqual(
    agents.map((usage) => [usage.label, usage.delegationDepth, usage.tokens, usage.costUsd]),
    [
      ['main', 0, { input: 1500, output: 150 }, (1000 * 10 + 100 * 30 + 500 * 1 + 50 * 2) / 1e6],
      ['reviewer', 1, { input: 2000, output: 200 }, (2000 * 1 + 200 * 2) / 1e6],
      ['fork', 2, { input: 10, output: 1 }, (10 * 1 + 1 * 2) / 1e6],
    ],
  );
  const total = ledger.total();
  assert.deepEqual(total.tokens, { input: 3510, output: 351 });
  const summed = agents.reduce((sum, usage) => sum + (usage.costUsd ?? 0), 0);
  assert.ok(Math.abs((total.costUsd ?? Number.NaN) - summed) < 1e-12);
  assert.deepEqual(total.unpriced, []);
});

test('a model without a price leaves the cost unknown and is named', () => {
  const ledger = new UsageLedger(PRICES);
  ledger.reset(
    agent({ sessionId: 'root' }, [answer('openai:big', 1000, 0), answer('local:llama', 5, 5)])
      .handle,
  );
  assert.equal(ledger.agents()[0]?.costUsd, undefined);
  const total = ledger.total();
  assert.equal(total.costUsd, undefined);
  assert.deepEqual(total.unpriced, ['local:llama']);
  assert.equal(costOf(PRICES, 'openai:big', { input: 1_000_000, output: 1_000_000 }), 40);
  assert.equal(costOf(PRICES, 'local:llama', { input: 1, output: 1 }), undefined);
  assert.equal(new UsageLedger().priced, false);
  assert.equal(ledger.priced, true);
});

test('cache reads and writes of the usage cost their own prices; a lookup serves as the prices', () => {
  const cached = event('assistant/message', {
    turnId: 't',
    step: 1,
    text: '',
    toolCalls: [],
    finishReason: 'stop',
    usage: { input: 1_000_000, output: 0, cachedInput: 800_000, cacheWrite: 100_000 },
    model: 'anthropic:claude',
    attempts: 1,
  });
  const asked: string[] = [];
  const ledger = new UsageLedger((model) => {
    asked.push(model);
    return model === 'anthropic:claude'
      ? { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }
      : undefined;
  });
  assert.equal(ledger.priced, true);
  ledger.reset(agent({ sessionId: 'root' }, [cached, cached]).handle);
  const cost = ledger.total().costUsd ?? Number.NaN;
  // Twice: 100k plain input at 3, 800k cache reads at 0.3, 100k cache writes at 3.75.
  assert.ok(Math.abs(cost - 2 * (0.3 + 0.24 + 0.375)) < 1e-9, String(cost));
  assert.ok(asked.includes('anthropic:claude'));
});

test('a summary a compaction asked for costs like any request of its agent, in a turn or not', () => {
  const ledger = new UsageLedger(PRICES);
  const root = agent({ sessionId: 'root' }, [
    answer('openai:big', 1000, 100),
    event('model/side-request', {
      purpose: 'summary',
      model: 'openai:small',
      usage: { input: 4000, output: 300 },
      turnId: 't',
    }),
  ]);
  ledger.reset(root.handle);
  // A manual compaction between turns.
  ledger.applyRoot(
    event('model/side-request', {
      purpose: 'summary',
      model: 'openai:small',
      usage: { input: 2000, output: 100 },
    }),
  );
  const [main] = ledger.agents();
  assert.deepEqual(main?.tokens, { input: 7000, output: 500 });
  assert.deepEqual(main?.models.get('openai:small'), { input: 6000, output: 400 });
  const expected = (1000 * 10 + 100 * 30 + 6000 * 1 + 400 * 2) / 1e6;
  assert.ok(Math.abs((main?.costUsd ?? Number.NaN) - expected) < 1e-12, String(main?.costUsd));
});
