import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context, type WaterfallHook } from '../../src/core/context.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import { toolExecute, toolPreExecute } from '../../src/core/tool-pipeline.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { toolResults } from '../helpers/session-files.js';
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
  const [result] = toolResults(handle.log.events);
  assert.equal(result?.isError, true);
  assert.equal(result?.errorCode, 'ABORTED');
  assert.equal(handle.log.events.at(-1)?.type, 'turn/end');
  assert.deepEqual(checkSessionInvariants(handle.log.events), []);
}

test('a cancelled turn ends while a tool that ignores its signal is still blocked', async () => {
  const started = deferred();
  await cancelWhileBlocked(new Context(), started.promise, started.resolve);
});

/** A root context whose `hook` middleware never settles; `started` is called on entering it. */
function rootBlockedIn<Input, Output>(
  hook: WaterfallHook<Input, Output>,
  started: () => void,
): Context {
  const root = new Context();
  root.use(hook, () => {
    started();
    return new Promise<never>(() => {});
  });
  return root;
}

test('a cancelled turn ends while a tools/execute middleware is blocked', async () => {
  const started = deferred();
  await cancelWhileBlocked(rootBlockedIn(toolExecute, started.resolve), started.promise, () => {});
});

test('a cancelled turn ends while a tools/pre-execute middleware is blocked', async () => {
  const started = deferred();
  await cancelWhileBlocked(
    rootBlockedIn(toolPreExecute, started.resolve),
    started.promise,
    () => {},
  );
});
