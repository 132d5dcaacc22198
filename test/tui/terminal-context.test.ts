/**
 * The context in the interactive `bin/loom`, in a real pseudo-terminal: over a scripted model
 * declaring a 16k window, a turn of 30 reads of 2 KB files warns and compacts, each shown as one
 * dim line in the transcript; `/context` then shows the next request's breakdown.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { scriptedFolders } from '../cli/loom-process.js';
import { openLoom, quit, send } from './pty-screen.js';

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
