/**
 * The starting screen (ink before the session is open): the prompt takes keys, a message sent
 * and the app's keys are kept in order for the app, Ctrl+C and Ctrl+D act at once.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { cleanup, render } from 'ink-testing-library';
import { type EarlyInput, StartingScreen } from '../../src/tui/components/starting-screen.js';
import { PromptEditor } from '../../src/tui/prompt-editor.js';
import { frameMatching, KEY, widgetReady } from './widget-harness.js';

afterEach(() => cleanup());

const SHIFT_TAB = '\x1b[Z';
const CTRL_C = '\x03';
const CTRL_D = '\x04';

function start() {
  const editor = new PromptEditor([]);
  const early: EarlyInput[] = [];
  let exits = 0;
  const view = render(
    <StartingScreen
      editor={editor}
      workspace="/work/project"
      early={early}
      onExit={() => {
        exits++;
      }}
    />,
  );
  return { view, editor, early, exits: () => exits };
}

test('the starting screen keeps what is sent and the app keys, in order', async () => {
  const { view, editor, early } = start();
  const first = await widgetReady(view, 'default mode');
  assert.match(first, /ask loom, \/ for commands/);
  assert.match(first, /\/work\/project/);
  view.stdin.write(SHIFT_TAB);
  view.stdin.write('hello');
  await frameMatching(view.lastFrame, '> hello');
  view.stdin.write(KEY.enter);
  await frameMatching(view.lastFrame, /ask loom/);
  assert.equal(editor.isEmpty, true);
  assert.deepEqual(
    early.map((input) => (input.kind === 'submit' ? `${input.delivery}:${input.text}` : 'key')),
    ['key', 'send:hello'],
  );
  const key = early[0];
  assert.ok(key?.kind === 'key' && key.key.tab && key.key.shift);
});

test('on the starting screen Ctrl+C clears, twice exits, and Ctrl+D on an empty prompt exits', async () => {
  const { view, editor, early, exits } = start();
  await widgetReady(view, 'default mode');
  view.stdin.write('draft');
  await frameMatching(view.lastFrame, '> draft');
  view.stdin.write(CTRL_D);
  assert.equal(exits(), 0, 'Ctrl+D with text deletes, never exits');
  view.stdin.write(CTRL_C);
  await frameMatching(view.lastFrame, /ask loom/);
  assert.equal(editor.isEmpty, true);
  view.stdin.write(CTRL_C);
  await frameMatching(view.lastFrame, 'press ctrl+c again to exit');
  view.stdin.write(CTRL_C);
  assert.equal(exits(), 1);
  view.stdin.write(CTRL_D);
  assert.equal(exits(), 2);
  assert.deepEqual(early, []);
});
