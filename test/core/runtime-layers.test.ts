/**
 * `AgentRuntime.installLayer`: a layer's tools reach every agent (from one registry the agents
 * share) and its per-agent setup every agent made after it; its undo takes both back from every
 * agent once. A layer whose tool name another took is refused whole when installed, and an agent
 * whose setup throws fails its start loudly, every setup made undone.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { LoomError } from '../../src/base/errors.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const tool = (name: string): ToolDefinition => ({
  name,
  description: `the ${name} tool`,
  parameters: { type: 'object' },
  execute: () => name,
});

function runtime() {
  const home = temporaryFolder('loom-layers-');
  return runtimeOver(createScriptedModel({ default: { reply: 'ok' } }), home);
}

test("a layer's tools and setup reach each agent; its undo takes them back from all, once", () => {
  const agents = runtime();
  const undone: string[] = [];
  const undo = agents.installLayer([tool('todo_read'), tool('todo_write')], (handle) => [
    () => undone.push(`first ${handle.log.header.sessionId}`),
    () => undone.push(`second ${handle.log.header.sessionId}`),
  ]);
  const one = agents.start({ deferFile: true });
  const two = agents.start({ deferFile: true });
  const names = (handle: typeof one) => handle.tools.visible().map(({ name }) => name);
  assert.deepEqual(names(one), ['todo_read', 'todo_write', 'load_tools']);
  assert.deepEqual(names(two), ['todo_read', 'todo_write', 'load_tools']);
  undo();
  undo();
  assert.deepEqual(names(one), ['load_tools']);
  assert.deepEqual(names(two), ['load_tools']);
  const ids = [one, two].map((handle) => handle.log.header.sessionId);
  assert.deepEqual(
    undone,
    ids.flatMap((id) => [`second ${id}`, `first ${id}`]),
  );
  one.close();
  two.close();
  assert.equal(undone.length, 4, 'a closed agent does not undo a layer already undone');
});

test('a layer whose tool name another layer took is refused when installed, and gives nothing', () => {
  const agents = runtime();
  const setUp: string[] = [];
  agents.installLayer([tool('recall')], () => []);
  assert.throws(
    () => agents.installLayer([tool('plan'), tool('recall')], () => [() => setUp.push('plan')]),
    (error: unknown) =>
      error instanceof LoomError && error.code === 'DUPLICATE_TOOL' && /recall/.test(error.message),
  );
  const agent = agents.start({ deferFile: true });
  assert.deepEqual(
    agent.tools.visible().map(({ name }) => name),
    ['recall', 'load_tools'],
  );
  assert.deepEqual(
    agents.toolCatalog
      .tools()
      .map(({ name }) => name)
      .sort(),
    ['load_tools', 'recall'],
  );
  agent.close();
  assert.deepEqual(setUp, [], 'the refused layer set nothing up');
});

test("an agent's own tool may not take a name its runtime offers", () => {
  const agents = runtime();
  agents.offerTools([tool('recall')]);
  agents.onAgent((handle) => handle.tools.register(tool('recall')));
  assert.throws(
    () => agents.start({ deferFile: true }),
    (error: unknown) =>
      error instanceof LoomError && error.code === 'DUPLICATE_TOOL' && /recall/.test(error.message),
  );
});

test('an agent whose setup throws fails its start, undoes every setup made and keeps no agent', () => {
  const agents = runtime();
  const undone: string[] = [];
  agents.installLayer([tool('recall')], () => [() => undone.push('recall setup')]);
  agents.installLayer([tool('plan')], () => [() => undone.push('plan setup')]);
  agents.onAgent(() => {
    throw new Error('this setup broke');
  });
  assert.throws(() => agents.start({ deferFile: true }), /this setup broke/);
  assert.deepEqual(undone, ['plan setup', 'recall setup'], 'every setup made is undone');
  assert.deepEqual(agents.liveAgents, [], 'the half-made agent is not kept');
  const locks = readdirSync(agents.store.directory).filter((name) => name.endsWith('.lock'));
  assert.deepEqual(locks, [], 'its session was closed and its lock released');
});
