/**
 * `AgentRuntime.installLayer`: a layer's tools and per-agent setup reach every agent made after
 * it, its undo takes both back from every agent once, and a layer that cannot register its tools
 * on an agent (a name another layer took) fails that agent's start loudly, its setup undone.
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
  assert.deepEqual(names(one), ['load_tools', 'todo_read', 'todo_write']);
  assert.deepEqual(names(two), ['load_tools', 'todo_read', 'todo_write']);
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

test('a layer whose tool name another layer took fails the start, undoes every setup made and keeps no agent', () => {
  const agents = runtime();
  const undone: string[] = [];
  agents.installLayer([tool('recall')], () => [() => undone.push('recall setup')]);
  agents.installLayer([tool('plan'), tool('recall')], () => [() => undone.push('plan setup')]);
  assert.throws(
    () => agents.start({ deferFile: true }),
    (error: unknown) =>
      error instanceof LoomError && error.code === 'DUPLICATE_TOOL' && /recall/.test(error.message),
  );
  assert.deepEqual(undone, ['plan setup', 'recall setup'], 'every setup made is undone');
  assert.deepEqual(agents.liveAgents, [], 'the half-made agent is not kept');
  const locks = readdirSync(agents.store.directory).filter((name) => name.endsWith('.lock'));
  assert.deepEqual(locks, [], 'its session was closed and its lock released');
});
