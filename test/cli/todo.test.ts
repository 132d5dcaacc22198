/**
 * Todos through `bin/loom` with the scripted model: `loom run` prints the list on stderr each
 * time it changes (with the tool lines), `--json` carries the `todo/write` events, and
 * `loom sessions show` ends with the session's last list.
 */
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { test } from 'node:test';
import { ndjsonLines, sessionPaths } from '../helpers/session-files.js';
import { runLoom, runScripted, scriptedFolders } from './loom-process.js';

const writeTodos = (todos: unknown[]) => ({
  tools: [{ name: 'todo_write', arguments: { todos } }],
});
const planned = [
  { content: 'Read the code', status: 'in_progress', activeForm: 'Reading the code' },
  { content: 'Write the fix', status: 'pending' },
];
const halfway = [
  { content: 'Read the code', status: 'completed' },
  { content: 'Write the fix', status: 'in_progress' },
];
const finished = [
  { content: 'Read the code', status: 'completed' },
  { content: 'Write the fix', status: 'completed' },
];

test('loom run prints the todo list when it changes, and sessions show lists the last one', async () => {
  const folders = scriptedFolders({
    rules: [
      {
        when: 'fix it',
        // The third write repeats the second: the list did not change, so it is not printed again.
        steps: [writeTodos(planned), writeTodos(halfway), writeTodos(halfway), { reply: 'fixed' }],
      },
      { when: 'wrap up', steps: [writeTodos(finished), { reply: 'all done' }] },
    ],
  });
  const run = await runScripted(folders, 'fix it');
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, 'fixed\n');
  const printed = run.stderr.split('\n').filter((line) => /^\[.\] /.test(line));
  assert.deepEqual(printed, [
    '[>] Reading the code',
    '[ ] Write the fix',
    '[x] Read the code',
    '[>] Write the fix',
  ]);

  const [path] = sessionPaths(folders.home);
  const sessionId = basename(path ?? '', '.jsonl');
  const shown = await runLoom(['sessions', 'show', sessionId], { home: folders.home });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /todos:\n {2}\[x\] Read the code\n {2}\[>\] Write the fix\n$/);

  const more = await runScripted(folders, 'wrap up', {
    json: true,
    args: ['--session', sessionId],
  });
  assert.equal(more.code, 0, more.stderr);
  const writes = ndjsonLines(more.stdout).filter((line) => line.type === 'todo/write');
  assert.deepEqual(
    writes.map((line) => line.data),
    [{ todos: finished }],
  );
  const after = await runLoom(['sessions', 'show', sessionId], { home: folders.home });
  assert.match(after.stdout, /todos:\n {2}\[x\] Read the code\n {2}\[x\] Write the fix\n$/);
});
