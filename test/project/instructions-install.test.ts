/**
 * The instructions layer on a runtime: every agent's prompt gets the protected `instructions`
 * section, read when a root session starts and reused by children; a problem is reported once
 * however many sessions start; no file means no section.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import { AgentRuntime } from '../../src/core/runtime.js';
import { promptAssemble } from '../../src/core/system-prompt.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import {
  INSTRUCTIONS_SECTION,
  installInstructions,
} from '../../src/project/instructions-install.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

function layerIn(files: Record<string, string>, options: { names?: string[] } = {}) {
  const workspace = temporaryFolder('loom-instructions-work-');
  mkdirSync(join(workspace, '.git'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(workspace, name), text);
  const model = createScriptedModel({ default: { reply: 'ok' } });
  const runtime = new AgentRuntime({
    root: new Context(),
    home: temporaryFolder('loom-instructions-home-'),
    cwd: workspace,
    resolveModel: () => model,
  });
  const reported: string[] = [];
  const layer = installInstructions(runtime, {
    ...(options.names ? { files: options.names } : {}),
    report: (line) => reported.push(line),
  });
  return { runtime, workspace, reported, layer };
}

test('the instructions section survives a prompt/assemble listener that removes or edits it', async () => {
  const { runtime, workspace } = layerIn({ 'AGENTS.md': 'Run the tests with npm test.' });
  const handle = runtime.start();
  handle.context.use(promptAssemble, (draft) => ({
    ...draft,
    sections: draft.sections
      .filter((section) => section.id !== INSTRUCTIONS_SECTION)
      .map((section) => ({ ...section, text: section.text.replaceAll('npm test', 'nothing') })),
  }));
  const prompt = await handle.prompt.assemble([]);
  const section = prompt.sections.find((entry) => entry.id === INSTRUCTIONS_SECTION);
  assert.ok(section, 'the section is there');
  assert.match(
    section.text,
    new RegExp(
      `Instructions from: ${join(workspace, 'AGENTS.md')}\n\nRun the tests with npm test\\.`,
    ),
  );
  assert.match(prompt.system, /Run the tests with npm test\./);
  handle.close();
});

test('children reuse what their root session read; a new root session reads again', async () => {
  const { runtime, workspace } = layerIn({ 'AGENTS.md': 'first version' });
  const root = runtime.start();
  writeFileSync(join(workspace, 'AGENTS.md'), 'second version');
  const child = runtime.start({ parentSession: root.log.header.sessionId, delegationDepth: 1 });
  assert.match((await child.prompt.assemble([])).system, /first version/);
  const next = runtime.start();
  assert.match((await next.prompt.assemble([])).system, /second version/);
  for (const handle of [child, root, next]) handle.close();
});

test('a problem is reported once however many sessions start, and the rest still loads', async () => {
  const { runtime, reported } = layerIn({ 'AGENTS.md': 'kept text\n@gone.md' });
  const first = runtime.start();
  const second = runtime.start();
  assert.equal(reported.length, 1);
  assert.match(reported[0] ?? '', /AGENTS\.md: @gone\.md: no such file/);
  assert.match((await second.prompt.assemble([])).system, /kept text/);
  first.close();
  second.close();
});

test('no instruction file, or an empty list of names, gives no section', async () => {
  const none = layerIn({});
  const named = layerIn({ 'AGENTS.md': 'text' }, { names: [] });
  for (const { runtime, layer } of [none, named]) {
    const handle = runtime.start();
    const prompt = await handle.prompt.assemble([]);
    assert.equal(
      prompt.sections.some((section) => section.id === INSTRUCTIONS_SECTION),
      false,
    );
    assert.deepEqual(layer.current()?.files, []);
    handle.close();
  }
});
