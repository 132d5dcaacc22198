/**
 * Two start-request fields of the in-process providers: `effort` reaches every model request of
 * the child (and its request headers), and the result says how the child's route sent it or that
 * it has no reasoning control; `workspace` moves the child's file tools and commands into
 * another folder, leaving the runtime's workspace alone.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import { AgentRuntime } from '../../src/core/runtime.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import { installSubagents } from '../../src/subagent/install.js';
import { builtinTools } from '../../src/tools/index.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { eventsOf, subagentFixture } from './subagent-fixture.js';

const model = {
  rules: [
    {
      when: 'write here',
      steps: [
        { tools: [{ name: 'write_file', arguments: { path: 'note.txt', content: 'child' } }] },
        { tools: [{ name: 'bash', arguments: { command: 'pwd' } }] },
        { reply: 'ran in {{lastToolResult}}' },
      ],
    },
    {
      when: 'use a tool',
      steps: [{ tools: [{ name: 'echo', arguments: { text: 'x' } }] }, { reply: 'done' }],
    },
  ],
  default: { reply: 'ok: {{prompt}}' },
};

const parent = { sessionId: null, delegationDepth: 0 };

test('effort reaches every request of the child; a model without a control says it ran without', async () => {
  const fixture = subagentFixture({
    model,
    tools: [
      {
        name: 'echo',
        description: 'Echoes.',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
        execute: async (args: { text: string }) => args.text,
      },
    ],
  });
  try {
    const run = fixture.services.registry.start('spawn', {
      parent: { sessionId: fixture.rootId, delegationDepth: 0 },
      prompt: 'use a tool',
      effort: 'high',
    });
    const result = await run.result;
    assert.equal(result.output, 'done', 'the answer does not change');
    const calls = fixture.model.calls.filter((call) => call.prompt === 'use a tool');
    assert.deepEqual(
      calls.map((call) => call.effort),
      ['high', 'high'],
    );
    const headers = eventsOf(fixture.load(run.id).events, 'request/header');
    assert.deepEqual(
      headers.map((header) => ('effort' in header ? header.effort : undefined)),
      ['high', 'high'],
    );
    // The fixture's model is the scripted model behind a wrapper that offers no control.
    assert.deepEqual(result.effort, {
      level: 'high',
      note: 'scripted:test has no reasoning control: the agent ran without effort high',
    });
    const plain = await fixture.services.registry.start('spawn', {
      parent: { sessionId: fixture.rootId, delegationDepth: 0 },
      prompt: 'no effort asked',
    }).result;
    assert.equal(plain.effort, undefined);
    const last = fixture.model.calls.at(-1);
    assert.equal(last?.effort, undefined);
  } finally {
    await fixture.close();
  }
});

test('a route with a control reports how it sent the effort', async () => {
  const home = temporaryFolder('loom-effort-');
  const scripted = createScriptedModel(model, { name: 'with-control' });
  const runtime = new AgentRuntime({
    root: new Context(),
    home,
    cwd: home,
    resolveModel: () => scripted,
  });
  const layer = installSubagents(runtime);
  try {
    const result = await layer.services.registry.start('spawn', {
      parent,
      prompt: 'x',
      effort: 'max',
    }).result;
    assert.deepEqual(result.effort, {
      level: 'max',
      control: 'the scripted model takes effort max as given (its answers do not change)',
    });
    assert.equal(scripted.calls[0]?.effort, 'max');
  } finally {
    layer.dispose();
  }
});

test('a child given a workspace writes and runs there, not in the runtime workspace', async () => {
  const home = temporaryFolder('loom-workspace-');
  const elsewhere = temporaryFolder('loom-elsewhere-');
  const scripted = createScriptedModel(model, { name: 'workspace' });
  const runtime = new AgentRuntime({
    root: new Context(),
    home,
    cwd: home,
    resolveModel: () => scripted,
  });
  const undoTools = runtime.offerTools(builtinTools({ workspace: { root: home, extraRoots: [] } }));
  const layer = installSubagents(runtime);
  try {
    const run = layer.services.registry.start('spawn', {
      parent,
      prompt: 'write here',
      workspace: elsewhere,
    });
    const result = await run.result;
    assert.equal(result.stopReason, 'completed', result.diagnostic);
    assert.equal(readFileSync(join(elsewhere, 'note.txt'), 'utf8'), 'child');
    assert.equal(existsSync(join(home, 'note.txt')), false);
    assert.match(result.output, new RegExp(`ran in ${realpathSync(elsewhere)}`));
    const session = runtime.store.open(run.id);
    assert.equal(session.header.cwd, realpathSync(elsewhere));
    session.close();
    // The system prompt names the folder the child works in.
    assert.ok(scripted.calls[0]?.system.includes(elsewhere), 'the prompt names the workspace');
  } finally {
    layer.dispose();
    undoTools();
  }
});
