/**
 * The interactive terminal's start through bin/loom in a pseudo-terminal: the prompt box is
 * drawn before ink loads, keys typed from the very start reach the prompt (none echoed, none
 * lost), ink's first frame takes the drawn box's place (one box on the screen, byte for byte the
 * same box), and a start that fails leaves no box behind. Needs `npm run build`.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { scriptedFolders } from '../cli/loom-process.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { KEYS, type ScreenRun, startScreen } from './pty-screen.js';

/** What `renderApp` writes right before ink renders: all output before it is the first frame. */
const BRACKETED_PASTE_ON = '\u001b[?2004h';
/** A prompt box as written: from its top border to its bottom border, colours included. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matches terminal escape sequences
const BOX = /\u001b\[36m╭[\s\S]*?╯\u001b\[39m/;

const screens: ScreenRun[] = [];
afterEach(() => {
  for (const screen of screens.splice(0)) {
    try {
      screen.kill();
    } catch {
      // It already exited.
    }
  }
});

const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;

test('the prompt box is drawn before ink loads; ink takes its place, and keys typed from the start land in it', async () => {
  const folders = scriptedFolders({ default: { reply: 'ok: {{prompt}}' } });
  // 60 columns: the placeholder wraps, so the box has two rows inside.
  const screen = startScreen(['--model', `scripted:${folders.model}`], {
    home: folders.home,
    cwd: folders.workspace,
    columns: 60,
  });
  screens.push(screen);
  // Typed as the process starts (before it could set raw mode, so the terminal echoes them),
  // then once the first frame shows (before ink reads keys): all reach the prompt, in order.
  screen.type('hel');
  await screen.waitFor('ask loom, / for commands');
  screen.type('lo');
  // ink's whole frame: the typed text in the box and its footer, which names the model (the
  // first frame's does not). A frame arrives in pieces, so both are waited for.
  const ready = await screen.waitFor(
    (text) => /│ > hello +│/.test(text) && /scripted:.* · ctx 0 · 0↑ 0↓/.test(text),
  );
  const rows = ready.split('\n');
  assert.match(rows[0] ?? '', /^╭─+╮$/, `nothing above the box, no echoed keys:\n${ready}`);
  assert.equal(count(ready, /╭/g), 1, `one prompt box:\n${ready}`);
  assert.equal(count(ready, /default mode/g), 1, `one footer:\n${ready}`);
  assert.match(ready, /scripted:.* · ctx 0 · 0↑ 0↓/);
  screen.type(KEYS.enter);
  await screen.waitFor('ok: hello');
  screen.type(KEYS.ctrlD);
  const { exitCode, output } = await screen.exited;
  assert.equal(exitCode, 0);
  const handOver = output.indexOf(BRACKETED_PASTE_ON);
  assert.ok(handOver > 0, 'ink started');
  const drawn = BOX.exec(output.slice(0, handOver))?.[0];
  assert.ok(drawn?.includes('ask loom, / for commands'), 'the first frame holds the box');
  assert.equal(drawn, BOX.exec(output.slice(handOver))?.[0], "ink's first box is the same box");
});

test('a start that fails after the first frame erases it and prints the error', async () => {
  const home = temporaryFolder();
  const screen = startScreen(['--model', 'nonsense'], { home, cwd: home, columns: 80 });
  screens.push(screen);
  const { exitCode, output } = await screen.exited;
  assert.equal(exitCode, 1);
  assert.match(output, /ask loom, \/ for commands/, 'the first frame was drawn');
  const text = screen.text();
  assert.match(text, /^loom: the model from --model is not usable/);
  assert.doesNotMatch(text, /╭|╰|default mode/);
  assert.ok(output.lastIndexOf('\u001b[?25h') > output.lastIndexOf('\u001b[?25l'), 'cursor shown');
});
