/**
 * The file tools' content seam: a file access provided on the agent's scope serves read_file,
 * edit_file and write_file after their own path checks, and the editor-backed one (ACP) splits
 * lines exactly as the local disk reader does, so read_file shows the same text either way.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { linesOf } from '../../src/acp/client-file-access.js';
import { Context } from '../../src/core/context.js';
import { editFileTool } from '../../src/tools/edit-file.js';
import {
  type FileRequest,
  localFileAccess,
  type WorkspaceFileAccess,
  workspaceFileAccessKey,
} from '../../src/tools/file-access.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import { contentOf, fakeExecution, temporaryWorkspace } from './fake-execution.js';

/** A file access over a map of texts by absolute path, recording what it was asked. */
function mapAccess(texts: Map<string, string>, asked: string[]): WorkspaceFileAccess {
  const text = ({ path }: FileRequest) => {
    asked.push(`read ${path}`);
    const found = texts.get(path);
    if (found === undefined) throw new Error(`no buffer for ${path}`);
    return found;
  };
  return {
    readText: async (request) => text(request),
    async *readLines(request) {
      yield* linesOf(text(request));
    },
    async writeText({ path, content }) {
      asked.push(`write ${path}`);
      texts.set(path, content);
    },
  };
}

test('a file access on the scope serves the file tools after their workspace checks', async () => {
  const workspace = temporaryWorkspace();
  const notes = join(workspace.root, 'notes.txt');
  writeFileSync(notes, 'disk\n');
  const texts = new Map([[notes, 'buffer one\nbuffer two\n']]);
  const asked: string[] = [];
  const context = new Context();
  context.provide(workspaceFileAccessKey, mapAccess(texts, asked));
  const execution = fakeExecution(undefined, context);

  const read = await readFileTool({ workspace }).execute({ path: 'notes.txt' }, execution);
  assert.equal(contentOf(read), '    1\tbuffer one\n    2\tbuffer two');
  const edit = await editFileTool({ workspace }).execute(
    { path: 'notes.txt', old_string: 'two', new_string: '2' },
    execution,
  );
  assert.deepEqual(typeof edit === 'object' ? edit.metadata : undefined, {
    path: 'notes.txt',
    occurrences: 1,
    line: 2,
    change: { oldText: 'buffer one\nbuffer two\n', newText: 'buffer one\nbuffer 2\n' },
  });
  assert.equal(texts.get(notes), 'buffer one\nbuffer 2\n');
  await assert.rejects(
    async () =>
      writeFileTool({ workspace }).execute({ path: '../elsewhere.txt', content: 'x' }, execution),
    /outside the workspace/,
  );
  assert.deepEqual(asked, [`read ${notes}`, `read ${notes}`, `write ${notes}`]);
});

test('lines from an editor split as the disk reader splits them', async () => {
  const workspace = temporaryWorkspace();
  const samples = ['', 'one', 'one\n', 'a\r\nb\rc\nd', 'a\n\nb\n\n', '\n', 'x\r\n'];
  for (const [index, text] of samples.entries()) {
    const path = join(workspace.root, `sample-${index}.txt`);
    writeFileSync(path, text);
    const local: string[] = [];
    const request = { path, shown: path, signal: new AbortController().signal };
    for await (const line of localFileAccess.readLines(request)) local.push(line);
    assert.deepEqual(linesOf(text), local, JSON.stringify(text));
  }
});
