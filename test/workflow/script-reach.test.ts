import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { modelRefusal, workspacePlace } from '../../src/workflow/script-reach.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test("a script may name configured routes, built-in providers and the run's own model; no other path-bearing or unknown spec", () => {
  const models = { routes: ['fast'], runModel: 'scripted:/work/model.json' };
  for (const allowed of [
    'fast',
    'fast:other-model',
    'openai:gpt-4o-mini',
    'anthropic:claude',
    'deepseek:deepseek-chat',
    'openai-compatible:llama@http://localhost:11434/v1',
    ' scripted:/work/model.json ',
  ]) {
    assert.equal(modelRefusal(allowed, models), undefined, allowed);
  }
  for (const refused of ['scripted:/etc/passwd', 'scripted:model.json', 'mystery:x', 'slow']) {
    assert.match(modelRefusal(refused, models) ?? '', /is refused: .*configured routes \(fast\)/);
  }
  assert.match(modelRefusal('scripted:/work/model.json', { routes: [] }) ?? '', /none configured/);
});

test('a path is inside the workspace only once its symlinks are resolved', () => {
  const workspace = temporaryFolder('loom-place-');
  const outside = temporaryFolder('loom-place-outside-');
  mkdirSync(join(workspace, 'flows'));
  symlinkSync(outside, join(workspace, 'link'));
  assert.equal(
    workspacePlace(join(workspace, 'flows', 'a.js'), workspace),
    join(workspace, 'flows', 'a.js'),
  );
  assert.equal(
    workspacePlace(join(workspace, 'new', 'b.js'), workspace),
    join(workspace, 'new', 'b.js'),
  );
  assert.equal(workspacePlace(join(workspace, 'link', 'a.js'), workspace), undefined);
  assert.equal(workspacePlace(join(workspace, 'link', 'deep', 'a.js'), workspace), undefined);
  assert.equal(workspacePlace(join(outside, 'a.js'), workspace), undefined);
  assert.equal(workspacePlace(`${workspace}-sibling/a.js`, workspace), undefined);
});
