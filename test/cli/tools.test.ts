import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ndjsonLines, toolResults as toolResultsOf } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, writeScriptedModel } from './loom-process.js';

interface Line {
  type: string;
  data: { name?: string; content?: string; isError?: boolean; reason?: string };
}

function toolResults(stdout: string): Line['data'][] {
  return toolResultsOf(ndjsonLines<Line>(stdout)) as Line['data'][];
}

test('loom run: file tools refuse paths that leave the workspace, and the model sees why', async () => {
  const home = temporaryFolder();
  const outside = temporaryFolder('loom-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'do not read');
  const workspace = temporaryFolder();
  mkdirSync(join(workspace, 'src'));
  symlinkSync(join(outside, 'secret.txt'), join(workspace, 'src', 'link.txt'));
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: 'escape',
        steps: [
          {
            tools: [
              { name: 'read_file', arguments: { path: '../x' } },
              { name: 'read_file', arguments: { path: join(outside, 'secret.txt') } },
              { name: 'read_file', arguments: { path: 'src/link.txt' } },
              { name: 'write_file', arguments: { path: '../../evil.txt', content: 'x' } },
            ],
          },
          { reply: 'all refused' },
        ],
      },
    ],
  });
  const result = await runLoom(
    ['run', '--json', '--model', `scripted:${model}`, '--cwd', workspace, 'escape'],
    {
      home,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const results = toolResults(result.stdout);
  assert.equal(results.length, 4);
  for (const item of results) {
    assert.equal(item.isError, true);
    assert.match(item.content ?? '', /outside the workspace/);
    assert.doesNotMatch(item.content ?? '', /do not read/);
  }
});

test('loom run: bash output and exit code reach the model', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: 'shell',
        steps: [
          {
            tools: [{ name: 'bash', arguments: { command: 'echo hello from bash; pwd; exit 3' } }],
          },
          { reply: 'bash said: {{lastToolResult}}' },
        ],
      },
    ],
  });
  const result = await runLoom(
    ['run', '--json', '--model', `scripted:${model}`, '--cwd', workspace, 'shell'],
    {
      home,
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const [bash] = toolResults(result.stdout);
  assert.ok(bash);
  assert.match(bash.content ?? '', /hello from bash/);
  assert.ok((bash.content ?? '').includes(workspace));
  assert.match(bash.content ?? '', /\[exit code: 3\]/);
  assert.equal(bash.isError, false);
});
