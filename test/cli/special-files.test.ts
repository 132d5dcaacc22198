import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { startLoom, writeScriptedModel } from './loom-process.js';

test('loom run: file tools refuse a FIFO with an error naming it, and the run completes', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  execFileSync('mkfifo', [join(workspace, 'pipe')]);
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: 'fifo',
        steps: [
          {
            tools: [
              { name: 'read_file', arguments: { path: 'pipe' } },
              { name: 'write_file', arguments: { path: 'pipe', content: 'x' } },
              { name: 'edit_file', arguments: { path: 'pipe', old_string: 'a', new_string: 'b' } },
              { name: 'grep', arguments: { pattern: 'x', path: 'pipe' } },
            ],
          },
          { reply: 'refused' },
        ],
      },
    ],
  });
  const run = startLoom(
    ['run', '--json', '--model', `scripted:${model}`, '--cwd', workspace, 'fifo'],
    { home },
  );
  // A run that hangs on the FIFO fails here instead of hanging the suite.
  const deadline = setTimeout(() => run.child.kill('SIGKILL'), 30_000);
  const { code, signal } = await run.exited;
  clearTimeout(deadline);
  assert.equal(signal, null, 'loom hung on the FIFO and was killed');
  assert.equal(code, 0, run.stderr());
  const result = { stdout: run.stdout() };
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
  const results = lines.filter((line) => line.type === 'tool/result').map((line) => line.data);
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
