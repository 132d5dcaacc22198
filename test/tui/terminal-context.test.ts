/**
 * The context in the interactive `bin/loom`, in a real pseudo-terminal: over a scripted model
 * declaring a 16k window, a turn of 30 reads of 2 KB files warns and compacts, each shown as one
 * dim line in the transcript; `/context` then shows the next request's breakdown. A model the
 * catalog does not know is noted once in the transcript, however many requests go to it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { scriptedFolders } from '../cli/loom-process.js';
import { startRecordingChatServer } from '../helpers/recording-chat-server.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { openLoom, quit, send, startScreen } from './pty-screen.js';

const STEPS = 30;

test('a compaction and the warning show as dim lines, and /context shows the breakdown', async (t) => {
  const folders = scriptedFolders({
    context: 16_000,
    rules: [
      {
        when: 'read',
        steps: [
          ...Array.from({ length: STEPS }, (_, index) => ({
            tools: [{ name: 'read_file', arguments: { path: `file-${index + 1}.txt` } }],
          })),
          { reply: 'read them all' },
        ],
      },
    ],
  });
  for (let index = 1; index <= STEPS; index++) {
    const line = `file ${index}: ${'abcdefghij'.repeat(6)}\n`;
    writeFileSync(
      join(folders.workspace, `file-${index}.txt`),
      line.repeat(Math.ceil(2048 / line.length)),
    );
  }
  const screen = await openLoom(t, folders);
  await send(screen, 'read every file');
  await screen.waitFor('read them all');
  const text = screen.text();
  const compacted =
    /compacted: (\d+) tool results pruned \((\d+(\.\d)?k) → (\d+(\.\d)?k) tokens\)/.exec(text);
  assert.ok(compacted, text);
  assert.equal(screen.styleOf('compacted: ')?.dim, true);
  assert.match(text, /context \d+% full: older tool results will be pruned soon/);
  assert.equal(screen.styleOf('full: older tool results')?.dim, true);

  await send(screen, '/context');
  await screen.waitFor(/model scripted:.*: window of 16k as the model client states it/);
  const breakdown = screen.text();
  assert.match(breakdown, /context of the next request/);
  assert.match(breakdown, /pruned stubs +\d+ +\d+ stubs/);
  assert.match(breakdown, /total +\d+(\.\d)?k +\d+% of 16k/);
  assert.match(breakdown, /warns at 70%, compacts at 80% \(12,800 tokens\)/);
  await quit(screen);
});

test('a model the catalog does not know is noted once in the transcript', async (t) => {
  const server = await startRecordingChatServer([{ text: 'first answer' }]);
  t.after(() => server.close());
  const home = temporaryFolder('loom-note-home-');
  const workspace = temporaryFolder('loom-note-work-');
  const spec = `openai-compatible:nosuchmodel@${server.baseURL}`;
  const screen = startScreen(['--model', spec], { home, cwd: workspace, columns: 200 });
  let exited = false;
  void screen.exited.then(() => {
    exited = true;
  });
  t.after(() => {
    if (!exited) screen.kill();
  });
  await screen.waitFor('ask loom');
  await send(screen, 'hello');
  await screen.waitFor('first answer');
  await send(screen, 'again');
  await screen.waitFor((text) => text.split('first answer').length - 1 === 2);
  const text = screen.text();
  assert.equal(server.bodies.length, 2);
  assert.equal(text.split('the model catalog does not know').length - 1, 1, text);
  // The notice wraps at the screen's width.
  assert.ok(text.replace(/\s*\n\s*/g, ' ').includes(`set models."${spec}".context`), text);
  await quit(screen);
});
