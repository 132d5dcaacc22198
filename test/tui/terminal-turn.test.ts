/**
 * `loom` with no command, as a person uses it: bin/loom in a pseudo-terminal with the scripted
 * model, keys typed after the prompt box is drawn, assertions on the rendered screen.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { runLoom, scriptedFolders } from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { KEYS, send, startScreen } from './pty-screen.js';

test('a turn shows the tool line and the streamed Markdown answer, and exit prints the session id', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'make a file',
        [{ name: 'write_file', arguments: { path: 'a.txt', content: 'hi' } }],
        '# Done\n\nwrote **a.txt**',
      ),
    ],
  });
  const screen = startScreen(['--model', `scripted:${folders.model}`], {
    home: folders.home,
    cwd: folders.workspace,
  });
  await screen.waitFor('ask loom');
  await send(screen, 'make a file');
  const shown = await screen.waitFor('wrote a.txt');
  assert.match(shown, /✓ write_file .*a\.txt/);
  assert.match(shown, /wrote 2 bytes to a\.txt/);
  assert.equal(readFileSync(`${folders.workspace}/a.txt`, 'utf8'), 'hi');
  screen.type(KEYS.ctrlC);
  await screen.waitFor('press ctrl+c again to exit');
  screen.type(KEYS.ctrlC);
  const { exitCode } = await screen.exited;
  assert.equal(exitCode, 0);
  assert.match(screen.text(), /resume it with: loom --resume \d{8}-\d{6}-\w+/);
});

test('without a terminal, loom prints a usage pointing at loom run and exits 2', async () => {
  const folders = scriptedFolders({ default: { reply: 'unused' } });
  const result = await runLoom([], { home: folders.home, cwd: folders.workspace });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /needs a terminal/);
  assert.match(result.stderr, /loom run "your prompt"/);
});

test('a mistyped command is named as unknown, exit 2, instead of opening a session', async () => {
  const folders = scriptedFolders({ default: { reply: 'unused' } });
  const result = await runLoom(['rnu', 'hello'], { home: folders.home, cwd: folders.workspace });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /unknown command 'rnu'/);
});
