import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { editFileTool } from '../../src/tools/edit-file.js';
import { grepTool } from '../../src/tools/grep.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { openRegularFile } from '../../src/tools/regular-file.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import { contentOf, fakeExecution, temporaryWorkspace } from './fake-execution.js';

test('the file tools name a socket and a character device instead of opening them', async () => {
  const workspace = temporaryWorkspace();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(join(workspace.root, 'socket'), resolve));
  try {
    const read = readFileTool({ workspace });
    await assert.rejects(
      Promise.resolve(read.execute({ path: 'socket' }, fakeExecution())),
      /^UserError: socket is a socket, not a regular file/,
    );
    const devices = { root: workspace.root, extraRoots: ['/dev'] };
    await assert.rejects(
      Promise.resolve(
        readFileTool({ workspace: devices }).execute({ path: '/dev/zero' }, fakeExecution()),
      ),
      /\/dev\/zero is a character device, not a regular file/,
    );
    await assert.rejects(
      Promise.resolve(
        writeFileTool({ workspace: devices }).execute(
          { path: '/dev/null', content: 'x' },
          fakeExecution(),
        ),
      ),
      /\/dev\/null is a character device, not a regular file/,
    );
  } finally {
    server.close();
  }
});

test('grep skips a FIFO inside a folder instead of blocking on it', async () => {
  const workspace = temporaryWorkspace();
  execFileSync('mkfifo', [join(workspace.root, 'pipe')]);
  writeFileSync(join(workspace.root, 'note.txt'), 'needle\n');
  const output = await grepTool({ workspace }).execute({ pattern: 'needle' }, fakeExecution());
  assert.equal(contentOf(output), 'note.txt:1: needle');
});

test('openRegularFile checks the opened handle, so a FIFO that passed no check is still refused', async () => {
  const workspace = temporaryWorkspace();
  const path = join(workspace.root, 'late-pipe');
  execFileSync('mkfifo', [path]);
  await assert.rejects(openRegularFile(path, 'late-pipe'), /late-pipe is a FIFO \(named pipe\)/);
  const edit = editFileTool({ workspace });
  await assert.rejects(
    Promise.resolve(
      edit.execute({ path: 'late-pipe', old_string: 'a', new_string: 'b' }, fakeExecution()),
    ),
    /late-pipe is a FIFO \(named pipe\), not a regular file/,
  );
});
