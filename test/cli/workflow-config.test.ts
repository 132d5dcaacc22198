import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig, parseConfig } from '../../src/config/load-config.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('config: the workflow section takes the limits and offerTool', () => {
  const config = parseConfig(
    [
      'workflow:',
      '  maxConcurrentAgents: 8',
      '  maxTotalAgents: 200',
      '  maxItemsPerCall: 500',
      '  syncTimeoutMs: 2000',
      '  cancelGraceMs: 1000',
      '  offerTool: always',
    ].join('\n'),
    'config.yaml',
  );
  assert.deepEqual(config.workflow, {
    maxConcurrentAgents: 8,
    maxTotalAgents: 200,
    maxItemsPerCall: 500,
    syncTimeoutMs: 2000,
    cancelGraceMs: 1000,
    offerTool: 'always',
  });
});

test('config: workflow mistakes name the line and field', () => {
  assert.throws(
    () =>
      parseConfig(
        'workflow:\n  maxConcurrentAgents: 0\n  offerTool: sometimes\n  maxAgents: 5\n',
        'c.yaml',
      ),
    (error: Error) => {
      assert.match(error.message, /c\.yaml:2: workflow\.maxConcurrentAgents: /);
      assert.match(error.message, /c\.yaml:3: workflow\.offerTool: /);
      assert.match(error.message, /c\.yaml:4: workflow\.maxAgents: unknown field/);
      return true;
    },
  );
  assert.throws(
    () => parseConfig('workflow:\n  maxConcurrentAgents: 257\n', 'c.yaml'),
    /c\.yaml:2/,
  );
});

test("config: the project's workflow section overrides the home one key by key", () => {
  const home = temporaryFolder();
  const project = temporaryFolder();
  writeFileSync(
    join(home, 'config.yaml'),
    'workflow:\n  maxTotalAgents: 50\n  cancelGraceMs: 100\n',
  );
  mkdirSync(join(project, '.loom'));
  writeFileSync(join(project, '.loom', 'config.yaml'), 'workflow:\n  cancelGraceMs: 200\n');
  assert.deepEqual(loadConfig(home, project).workflow, { maxTotalAgents: 50, cancelGraceMs: 200 });
});
