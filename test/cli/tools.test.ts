import assert from 'node:assert/strict';
import { linkSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { ndjsonLines, toolResults as toolResultsOf } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runScripted, scriptedFolders } from './loom-process.js';

interface Line {
  type: string;
  data: { name?: string; content?: string; isError?: boolean; reason?: string };
}

function toolResults(stdout: string): Line['data'][] {
  return toolResultsOf(ndjsonLines<Line>(stdout)) as Line['data'][];
}

test('loom run: file tools refuse paths that leave the workspace, and the model sees why', async () => {
  const outside = temporaryFolder('loom-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'do not read');
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'escape',
        [
          [
            { name: 'read_file', arguments: { path: '../x' } },
            { name: 'read_file', arguments: { path: join(outside, 'secret.txt') } },
            { name: 'read_file', arguments: { path: 'src/link.txt' } },
            { name: 'write_file', arguments: { path: '../../evil.txt', content: 'x' } },
          ],
        ],
        'all refused',
      ),
    ],
  });
  mkdirSync(join(folders.workspace, 'src'));
  symlinkSync(join(outside, 'secret.txt'), join(folders.workspace, 'src', 'link.txt'));
  const result = await runScripted(folders, 'escape', { json: true });
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
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'shell',
        [bashCall('echo hello from bash; pwd; exit 3')],
        'bash said: {{lastToolResult}}',
      ),
    ],
  });
  const result = await runScripted(folders, 'shell', { json: true });
  assert.equal(result.code, 0, result.stderr);
  const [bash] = toolResults(result.stdout);
  assert.ok(bash);
  assert.match(bash.content ?? '', /hello from bash/);
  assert.ok((bash.content ?? '').includes(folders.workspace));
  assert.match(bash.content ?? '', /\[exit code: 3\]/);
  assert.equal(bash.isError, false);
});

test('loom run: write_file and edit_file on a file hard-linked from outside the workspace replace the workspace name and leave the outside file as it was', async () => {
  const outside = temporaryFolder('loom-outside-');
  const outsideWritten = join(outside, 'written.txt');
  const outsideEdited = join(outside, 'edited.txt');
  writeFileSync(outsideWritten, 'outside content\n');
  writeFileSync(outsideEdited, 'outside content\n');
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'write through links',
        [
          { name: 'write_file', arguments: { path: 'written.txt', content: 'new content\n' } },
          {
            name: 'edit_file',
            arguments: { path: 'edited.txt', old_string: 'outside', new_string: 'edited' },
          },
        ],
        'done',
      ),
    ],
  });
  linkSync(outsideWritten, join(folders.workspace, 'written.txt'));
  linkSync(outsideEdited, join(folders.workspace, 'edited.txt'));
  const result = await runScripted(folders, 'write through links', { json: true });
  assert.equal(result.code, 0, result.stderr);
  const results = toolResults(result.stdout);
  assert.deepEqual(
    results.map((item) => item.isError ?? false),
    [false, false],
    JSON.stringify(results),
  );
  assert.equal(readFileSync(outsideWritten, 'utf8'), 'outside content\n');
  assert.equal(readFileSync(outsideEdited, 'utf8'), 'outside content\n');
  assert.equal(readFileSync(join(folders.workspace, 'written.txt'), 'utf8'), 'new content\n');
  assert.equal(readFileSync(join(folders.workspace, 'edited.txt'), 'utf8'), 'edited content\n');
  assert.equal(statSync(join(folders.workspace, 'written.txt')).nlink, 1);
});
