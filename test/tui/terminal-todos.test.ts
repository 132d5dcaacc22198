/**
 * The todo list in the interactive `bin/loom`: a pseudo-terminal, the scripted model calling
 * `todo_write`, assertions on the screen: the call's line is the checklist (not its JSON), and
 * the live checklist stays under the transcript while the list has unfinished items.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scriptedFolders } from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { openLoom, quit, send } from './pty-screen.js';

const planned = [
  { content: 'Read the code', status: 'completed' },
  { content: 'Run the tests', status: 'in_progress', activeForm: 'Running the tests' },
  { content: 'Write the fix', status: 'pending' },
];
const done = planned.map(({ content }) => ({ content, status: 'completed' }));

test('a todo_write shows as a checklist, and the live checklist stays under the transcript until every item is done', async (t) => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply('plan it', [{ name: 'todo_write', arguments: { todos: planned } }], 'planned'),
      callsThenReply('finish it', [{ name: 'todo_write', arguments: { todos: done } }], 'finished'),
    ],
  });
  const screen = await openLoom(t, folders);
  await send(screen, 'plan it');
  const shown = await screen.waitFor(/planned[\s\S]*\[>\] Running the tests[\s\S]*ask loom/);
  assert.match(
    shown,
    /✓ todo_write\s*\n\s+\[x\] Read the code\n\s+\[>\] Running the tests\n\s+\[ \] Write the fix/,
  );
  assert.doesNotMatch(shown, /"todos"|in_progress/, 'no raw JSON');
  // The live list: after the answer, right above the prompt box.
  const lines = shown.split('\n');
  const box = lines.findLastIndex((line) => line.startsWith('╭'));
  assert.deepEqual(
    lines.slice(box - 3, box).map((line) => line.trim()),
    ['[x] Read the code', '[>] Running the tests', '[ ] Write the fix'],
  );
  await send(screen, 'finish it');
  const finished = await screen.waitFor(/finished[\s\S]*ask loom/);
  const after = finished.split('\n');
  const lastBox = after.findLastIndex((line) => line.startsWith('╭'));
  const answer = after.findLastIndex((line) => line.includes('finished'));
  assert.ok(
    !after.slice(answer, lastBox).some((line) => line.includes('[')),
    'a list with every item done leaves the live region',
  );
  assert.match(finished, /✓ todo_write\s*\n\s+\[x\] Read the code\n\s+\[x\] Run the tests/);
  await quit(screen);
});
