import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { ndjsonLines, toolResults } from '../helpers/session-files.js';
import { scriptedFolders, startScriptedRun } from './loom-process.js';

test('loom run: file tools refuse a FIFO with an error naming it, and the run completes', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'fifo',
        [
          [
            { name: 'read_file', arguments: { path: 'pipe' } },
            { name: 'write_file', arguments: { path: 'pipe', content: 'x' } },
            { name: 'edit_file', arguments: { path: 'pipe', old_string: 'a', new_string: 'b' } },
            { name: 'grep', arguments: { pattern: 'x', path: 'pipe' } },
          ],
        ],
        'refused',
      ),
    ],
  });
  execFileSync('mkfifo', [join(folders.workspace, 'pipe')]);
  const run = startScriptedRun(folders, 'fifo', { json: true });
  // A run that hangs on the FIFO fails here instead of hanging the suite.
  const deadline = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
  const { code, signal } = await run.exited;
  clearTimeout(deadline);
  assert.equal(signal, null, 'loom hung on the FIFO and was killed');
  assert.equal(code, 0, run.stderr());
  const lines = ndjsonLines(run.stdout());
  const results = toolResults(lines);
  assert.deepEqual(
    results.map((item) => [item.name, item.isError]),
    [
      ['read_file', true],
      ['write_file', true],
      ['edit_file', true],
      ['grep', true],
    ],
  );
  for (const item of results) {
    assert.match(String(item.content), /^pipe is a FIFO \(named pipe\), not a regular file/);
  }
  assert.equal(lines.find((line) => line.type === 'turn/end')?.data.reason, 'completed');
});
