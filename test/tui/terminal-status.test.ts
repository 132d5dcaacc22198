/**
 * The running turn's status line in the interactive `bin/loom`: a pseudo-terminal, the scripted
 * model holding a request open (or a command asking for approval), assertions on what the screen
 * shows as the seconds pass. The test waits for the counter to reach each second on the screen,
 * never on a timer of its own.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runScripted, scriptedFolders } from '../cli/loom-process.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { KEYS, openLoom, send, startScreen } from './pty-screen.js';

/** The status line's row of `screen`, or undefined when none shows. */
function statusRow(screen: string): string | undefined {
  return screen.split('\n').find((line) => line.includes('esc to interrupt'));
}

test('while the model works, a status line above the prompt shows a spinner, the elapsed seconds counting up, tokens and esc to interrupt', async (t) => {
  const screen = await openLoom(t, scriptedFolders({ rules: [{ when: 'slow', hang: true }] }));
  await send(screen, 'slow');
  const first = await screen.waitFor((text) => / 1s · /.test(statusRow(text) ?? ''));
  // A frame is read whole: the pseudo-terminal may hand over a redraw in pieces, and a screen read
  // between two pieces shows the new status line above what is not yet redrawn.
  const second = await screen.waitFor(
    (text) => / 2s · /.test(statusRow(text) ?? '') && text.includes('working'),
  );
  const firstRow = statusRow(first) ?? '';
  assert.match(firstRow, /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] 1s · 0↑ 0↓ · thinking · esc to interrupt$/);
  assert.notEqual(statusRow(second), firstRow);
  assert.notEqual(second, first);
  // The line sits between the transcript and the prompt box.
  const lines = second.split('\n');
  const row = lines.findIndex((line) => line.includes('esc to interrupt'));
  assert.ok(lines.slice(0, row).some((line) => line.includes('slow')));
  assert.ok(lines.slice(row).some((line) => line.includes('working')));
  screen.type(KEYS.escape);
  await screen.waitFor((text) => statusRow(text) === undefined && text.includes('ask loom'));
});

test('a command waiting for approval shows "waiting for your approval" on the status line and "waiting for approval" on its tool line, then running after the answer', async (t) => {
  const folders = scriptedFolders({
    rules: [callsThenReply('run it', [bashCall('echo hi && sleep 30')], 'done')],
  });
  writeFileSync(
    join(folders.home, 'config.yaml'),
    'permissions:\n  - tool: bash\n    match: { command: "echo *" }\n    action: ask\n',
  );
  const screen = await openLoom(t, folders);
  await send(screen, 'run it');
  await screen.waitFor((text) => /waiting for your approval/.test(statusRow(text) ?? ''));
  await screen.waitFor(/… bash echo hi && sleep 30 · waiting for approval/);
  screen.type('y');
  await screen.waitFor((text) => /· running bash ·/.test(statusRow(text) ?? ''));
  await screen.waitFor(/… bash echo hi && sleep 30 · running/);
  assert.doesNotMatch(screen.text(), /· waiting for approval/);
  screen.type(KEYS.escape);
  await screen.waitFor((text) => statusRow(text) === undefined && text.includes('ask loom'));
});

test('loom run on a terminal draws the status line on stderr while the model works, counting the seconds up', async (t) => {
  const folders = scriptedFolders({ rules: [{ when: 'slow', hang: true }] });
  const screen = startScreen(
    ['run', '--model', `scripted:${folders.model}`, '--cwd', folders.workspace, 'slow'],
    { home: folders.home, cwd: folders.workspace },
  );
  let exited = false;
  void screen.exited.then(() => {
    exited = true;
  });
  t.after(() => {
    if (!exited) screen.kill();
  });
  const row = (text: string) => text.split('\n').find((line) => line.includes('to interrupt'));
  const first = await screen.waitFor((text) => / 1s · /.test(row(text) ?? ''));
  assert.match(row(first) ?? '', /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] 1s · 0↑ 0↓ · thinking · ctrl\+c to interrupt$/);
  await screen.waitFor((text) => / 2s · /.test(row(text) ?? ''));
  screen.type(KEYS.ctrlC);
  const { exitCode } = await screen.exited;
  assert.equal(exitCode, 130);
});

test('loom run with stderr piped prints no status line, however long the model takes', async () => {
  const folders = scriptedFolders({ rules: [{ when: 'slow', delayMs: 1200, reply: 'done' }] });
  const result = await runScripted(folders, 'slow');
  assert.equal(result.code, 0);
  assert.equal(result.stdout, 'done\n');
  assert.doesNotMatch(result.stderr, /to interrupt|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  assert.ok(!result.stderr.includes('\x1b[2K'), 'no line is erased on a piped stderr');
});
