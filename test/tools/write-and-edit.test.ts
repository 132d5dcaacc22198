import assert from 'node:assert/strict';
import { chmodSync, linkSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { editFileTool } from '../../src/tools/edit-file.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { contentOf, fakeExecution, temporaryWorkspace } from './fake-execution.js';

test('write_file creates parent folders and reports created, then overwrote', async () => {
  const workspace = temporaryWorkspace();
  const tool = writeFileTool({ workspace });
  const first = contentOf(
    await tool.execute({ path: 'deep/er/a.txt', content: 'héllo' }, fakeExecution()),
  );
  assert.equal(first, 'wrote 6 bytes to deep/er/a.txt (created)');
  const second = contentOf(
    await tool.execute({ path: 'deep/er/a.txt', content: 'bye' }, fakeExecution()),
  );
  assert.equal(second, 'wrote 3 bytes to deep/er/a.txt (overwrote existing file)');
  assert.equal(readFileSync(join(workspace.root, 'deep/er/a.txt'), 'utf8'), 'bye');
});

test('write_file refuses paths outside the workspace', async () => {
  const workspace = temporaryWorkspace();
  const tool = writeFileTool({ workspace });
  await assert.rejects(
    Promise.resolve().then(() =>
      tool.execute({ path: '../escape.txt', content: 'x' }, fakeExecution()),
    ),
    /outside the workspace/,
  );
});

function editSetup(content: string) {
  const workspace = temporaryWorkspace();
  const path = join(workspace.root, 'code.ts');
  writeFileSync(path, content);
  const tool = editFileTool({ workspace });
  const edit = async (args: Record<string, unknown>) =>
    contentOf(await tool.execute({ path: 'code.ts', ...args }, fakeExecution()));
  return { path, edit };
}

test('edit_file replaces a unique match exactly, dollar signs included', async () => {
  const { path, edit } = editSetup('const a = 1;\nconst b = 2;\n');
  assert.equal(
    await edit({ old_string: 'a = 1', new_string: "a = '$&$1'" }),
    'replaced 1 occurrence in code.ts',
  );
  assert.equal(readFileSync(path, 'utf8'), "const a = '$&$1';\nconst b = 2;\n");
});

test('edit_file with zero matches says so and shows nothing else', async () => {
  const { path, edit } = editSetup('const a = 1;\n');
  await assert.rejects(edit({ old_string: 'missing', new_string: 'x' }), (error: Error) => {
    assert.equal(error.message, 'old_string was not found in code.ts');
    return true;
  });
  assert.equal(readFileSync(path, 'utf8'), 'const a = 1;\n');
});

test('edit_file with several matches needs context or replace_all', async () => {
  const { path, edit } = editSetup('x = 1;\nx = 1;\nx = 1;\n');
  await assert.rejects(edit({ old_string: 'x = 1', new_string: 'y = 2' }), (error: Error) => {
    assert.match(error.message, /occurs 3 times in code\.ts/);
    assert.match(error.message, /add surrounding context/);
    assert.match(error.message, /replace_all/);
    return true;
  });
  assert.equal(readFileSync(path, 'utf8'), 'x = 1;\nx = 1;\nx = 1;\n');
  assert.equal(
    await edit({ old_string: 'x = 1', new_string: 'y = 2', replace_all: true }),
    'replaced 3 occurrences in code.ts',
  );
  assert.equal(readFileSync(path, 'utf8'), 'y = 2;\ny = 2;\ny = 2;\n');
});

test('edit_file refuses identical strings and missing files', async () => {
  const { edit } = editSetup('a');
  await assert.rejects(edit({ old_string: 'a', new_string: 'a' }), /identical/);
  await assert.rejects(
    edit({ path: 'nope.ts', old_string: 'a', new_string: 'b' }),
    /nope\.ts does not exist/,
  );
});

test('write_file and edit_file replace a file that has another hard link: the other link keeps its content, the mode is kept and no temporary is left', async () => {
  const workspace = temporaryWorkspace();
  const outside = join(temporaryFolder('loom-outside-'), 'shared.txt');
  writeFileSync(outside, 'const a = 1;\n');
  chmodSync(outside, 0o751);
  const inside = join(workspace.root, 'shared.txt');
  linkSync(outside, inside);
  const write = writeFileTool({ workspace });
  await write.execute({ path: 'shared.txt', content: 'const a = 2;\n' }, fakeExecution());
  assert.equal(readFileSync(outside, 'utf8'), 'const a = 1;\n');
  assert.equal(readFileSync(inside, 'utf8'), 'const a = 2;\n');
  assert.equal(statSync(inside).mode & 0o7777, 0o751);
  assert.equal(statSync(inside).nlink, 1);

  const again = join(temporaryFolder('loom-outside-'), 'again.txt');
  linkSync(inside, again);
  const edit = editFileTool({ workspace });
  await edit.execute({ path: 'shared.txt', old_string: '2', new_string: '3' }, fakeExecution());
  assert.equal(readFileSync(inside, 'utf8'), 'const a = 3;\n');
  assert.equal(readFileSync(again, 'utf8'), 'const a = 2;\n');
  assert.deepEqual(readdirSync(workspace.root), ['shared.txt']);
});
