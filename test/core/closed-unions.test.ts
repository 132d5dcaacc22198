import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LoomErrorCode } from '../../src/base/errors.js';
import { agentTurnStopping, type TurnOutcome } from '../../src/core/agent-hooks.js';
import { Context } from '../../src/core/context.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { ToolDefinition, ToolResult } from '../../src/core/tool-contract.js';
import { ToolPipeline, toolPreExecute } from '../../src/core/tool-pipeline.js';
import type { ModelClient, ModelStreamPart } from '../../src/llm/contract.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { agentFixture } from './agent-fixture.js';

const answering = { rules: [{ when: '.*', reply: 'plain answer' }] };

function lastTurnEnd(events: readonly SessionEvent[]): SessionEvent<'turn/end'> {
  const end = events.at(-1);
  assert.equal(end?.type, 'turn/end');
  return end as SessionEvent<'turn/end'>;
}

/** A client that breaks its contract: its stream throws instead of ending with an error part. */
function throwingModel(): ModelClient {
  return {
    id: 'throwing',
    // biome-ignore lint/correctness/useYield: the stream fails before its first part.
    async *stream() {
      throw new Error('the stream machinery broke');
    },
  };
}

function partsModel(parts: unknown[]): ModelClient {
  return {
    id: 'parts',
    async *stream() {
      for (const part of parts) yield part as ModelStreamPart;
    },
  };
}

test('a throwing agent/turn-stopping handler ends the turn with the declared code INTERNAL', async () => {
  const handle = agentFixture({ model: answering });
  handle.context.handle(agentTurnStopping, () => {
    throw new Error('the stopping rule broke');
  });
  const outcome = await handle.agent.prompt('answer');
  handle.close();
  assert.equal(outcome.reason, 'error');
  const code: LoomErrorCode | undefined = outcome.error.code;
  assert.equal(code, 'INTERNAL');
  assert.equal(outcome.error.message, 'the stopping rule broke');
  const end = lastTurnEnd(handle.log.events);
  assert.deepEqual(end.data.error, { code: 'INTERNAL', message: 'the stopping rule broke' });
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
  // The code field is a closed union: a code nobody declared does not compile.
  // @ts-expect-error 'NOT_DECLARED' is not a member of LoomErrorCodeMap.
  const undeclared: LoomErrorCode = 'NOT_DECLARED';
  assert.equal(typeof undeclared, 'string');
});

test('a model stream that throws ends the turn as INTERNAL, closing its step', async () => {
  const handle = agentFixture({ model: throwingModel() });
  const outcome = await handle.agent.prompt('answer');
  handle.close();
  assert.equal(outcome.reason, 'error');
  assert.equal(outcome.error.code, 'INTERNAL');
  assert.equal(outcome.error.message, 'the stream machinery broke');
  const stepEnd = handle.log.events.find((event) => event.type === 'step/end');
  assert.equal((stepEnd as SessionEvent<'step/end'>).data.finishReason, 'error');
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
});

test('a stream part outside the model contract fails the turn instead of being ignored', async () => {
  const handle = agentFixture({
    model: partsModel([
      { type: 'text', text: 'hello' },
      { type: 'mystery', payload: 1 },
      { type: 'finish', reason: 'stop', usage: { input: 1, output: 1 } },
    ]),
  });
  const outcome = await handle.agent.prompt('answer');
  handle.close();
  assert.equal(outcome.reason, 'error');
  assert.equal(outcome.error.code, 'INTERNAL');
  assert.match(outcome.error.message, /unexpected model stream part: .*"mystery"/);
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
});

test('only an error ending carries an error, in the outcome and on disk', async () => {
  const completed = agentFixture({ model: answering });
  const outcome: TurnOutcome = await completed.agent.prompt('answer');
  completed.close();
  assert.equal(outcome.reason, 'completed');
  assert.equal('error' in outcome, false);
  // @ts-expect-error `error` exists only on the `error` variant.
  assert.equal(outcome.error, undefined);
  assert.deepEqual(Object.keys(lastTurnEnd(completed.log.events).data), [
    'turnId',
    'reason',
    'usage',
    'steps',
  ]);

  const failed = agentFixture({ model: answering, limits: { maxSteps: 0 } });
  const failure = await failed.agent.prompt('answer');
  failed.close();
  assert.equal(failure.reason, 'error');
  assert.equal(failure.error.code, 'STEP_LIMIT');
  const end = lastTurnEnd(failed.log.events).data;
  assert.deepEqual(Object.keys(end), ['turnId', 'reason', 'usage', 'steps', 'error']);
  assert.deepEqual(end.error, failure.error);
});

test('a rewritten request that happens to carry `content` is still admitted and runs', async () => {
  const context = new Context({ name: 'agent-1', reportListenerError: () => {} });
  const pipeline = new ToolPipeline({ context });
  const seen: unknown[] = [];
  const echo: ToolDefinition = {
    name: 'echo',
    description: 'Echoes its text.',
    parameters: { type: 'object', properties: { text: { type: 'string' } } },
    execute: (args: { text: string }) => {
      seen.push(args);
      return `echo: ${args.text}`;
    },
  };
  pipeline.register(echo);
  // A plugin (plain JavaScript) annotates the request it passes on with a field of its own.
  context.use(toolPreExecute, (request, next) =>
    next({ ...request, arguments: { text: 'rewritten' }, content: 'a note' } as typeof request),
  );
  const results: ToolResult[] = await pipeline.executeStep({
    calls: [{ id: 'call-1', name: 'echo', arguments: { text: 'original' } }],
    agentId: 'agent-1',
    turnId: 'turn-1',
    signal: new AbortController().signal,
    concludeTurn: () => {},
  });
  assert.deepEqual(seen, [{ text: 'rewritten' }]);
  assert.deepEqual(results, [
    { callId: 'call-1', name: 'echo', content: 'echo: rewritten', isError: false },
  ]);
});
