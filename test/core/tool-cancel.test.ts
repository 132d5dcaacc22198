import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import { toolExecute, toolPreExecute } from '../../src/core/tool-pipeline.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { agentFixture, deferred } from './agent-fixture.js';

/** A tool that never settles and never looks at its signal: a FIFO open, a stuck library call. */
function blockedTool(started: () => void): ToolDefinition {
  return {
    name: 'block',
    description: 'Blocks forever and ignores its signal.',
    parameters: { type: 'object', properties: {} },
    execute: () => {
      started();
      return new Promise(() => {});
    },
  };
}

const model = { rules: [{ when: 'block', tools: [{ name: 'block', arguments: {} }] }] };

async function cancelWhileBlocked(
  root: Context,
  started: Promise<void>,
  resolveStarted: () => void,
) {
  const handle = agentFixture({ model, tools: [blockedTool(resolveStarted)], root });
  const outcome = handle.agent.prompt('block');
  await started;
  handle.agent.cancel('the user pressed Ctrl-C');
  const ended = await outcome;
  handle.close();
  assert.equal(ended.reason, 'aborted');
  const result = handle.log.events.find(
    (event) => event.type === 'tool/result',
  ) as SessionEvent<'tool/result'>;
  assert.equal(result.data.isError, true);
  assert.equal(result.data.errorCode, 'ABORTED');
  assert.equal(handle.log.events.at(-1)?.type, 'turn/end');
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
}

test('a cancelled turn ends while a tool that ignores its signal is still blocked', async () => {
  const started = deferred();
  await cancelWhileBlocked(new Context(), started.promise, started.resolve);
});

test('a cancelled turn ends while a tools/execute middleware is blocked', async () => {
  const started = deferred();
  const root = new Context();
  root.use(toolExecute, () => {
    started.resolve();
    return new Promise(() => {});
  });
  await cancelWhileBlocked(root, started.promise, () => {});
});

test('a cancelled turn ends while a tools/pre-execute middleware is blocked', async () => {
  const started = deferred();
  const root = new Context();
  root.use(toolPreExecute, () => {
    started.resolve();
    return new Promise(() => {});
  });
  await cancelWhileBlocked(root, started.promise, () => {});
});
