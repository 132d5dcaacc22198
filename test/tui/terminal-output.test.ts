/**
 * How turns look on a real terminal: bin/loom in a pseudo-terminal with the scripted model,
 * asserting on the xterm screen and its colours. Highlighted code, one-line reasoning, edits as
 * coloured diffs, long output folded with Ctrl+O opening the expanded transcript (Esc returns),
 * and resizing during and after a turn leaving one clean prompt box and footer.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { scriptedFolders } from '../cli/loom-process.js';
import { bashCall } from '../helpers/scripted-turns.js';
import { KEYS, quit, type ScreenOptions, type ScreenRun, send, startScreen } from './pty-screen.js';

/** Palette indices of the basic colours (FORCE_COLOR=1 gives 16 colours). */
const RED = 1;
const GREEN = 2;
const CTRL_O = '\u000f';

/** Starts bin/loom on a screen that is killed when the test ends before loom exits. */
function open(context: TestContext, model: string, options: ScreenOptions): ScreenRun {
  const screen = startScreen(['--model', `scripted:${model}`], options);
  let ended = false;
  void screen.exited.then(() => {
    ended = true;
  });
  context.after(() => {
    if (!ended) screen.kill();
  });
  return screen;
}

/** Types `prompt` and Enter once the footer says no turn is running (so it starts a turn). */
async function sendIdle(screen: ScreenRun, prompt: string): Promise<void> {
  await screen.waitFor('shift+tab mode');
  await send(screen, prompt);
}

test('code blocks are highlighted, reasoning takes one dim line, and edits are coloured diffs', async (context) => {
  const folders = scriptedFolders({
    rules: [
      {
        when: 'change b',
        steps: [
          {
            tools: [
              {
                name: 'write_file',
                arguments: { path: 'a.ts', content: 'const a = 1;\nconst b = 2;\n' },
              },
            ],
          },
          {
            reasoning: `The file exists now.\nNext I change b.\n${'Weighing it carefully. '.repeat(12)}`,
            tools: [
              {
                name: 'edit_file',
                arguments: { path: 'a.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' },
              },
            ],
          },
          { reply: 'Changed it:\n\n```ts\nexport const total: number = 3;\n```\n\nDone.' },
        ],
      },
    ],
  });
  const screen = open(context, folders.model, {
    home: folders.home,
    cwd: folders.workspace,
  });
  await screen.waitFor('ask loom');
  await sendIdle(screen, 'change b');
  const shown = await screen.waitFor('Done.');
  assert.match(
    shown,
    /✓ write_file a\.ts\n {2}⎿ wrote 26 bytes to a\.ts \(created\)\n {4}\+ const a = 1;\n {4}\+ const b = 2;/,
  );
  assert.match(
    shown,
    /✓ edit_file a\.ts\n {2}⎿ replaced 1 occurrence in a\.ts\n {4}- const b = 2;\n {4}\+ const b = 3;/,
  );
  assert.equal(screen.styleOf('- const b = 2;')?.foreground, RED);
  assert.equal(screen.styleOf('+ const b = 3;')?.foreground, GREEN);

  const reasoning = shown.split('\n').filter((line) => line.startsWith('∴ '));
  assert.equal(reasoning.length, 1, shown);
  assert.match(
    reasoning[0] ?? '',
    /^∴ The file exists now\. Next I change b\. Weighing.*… · ctrl\+o$/,
  );
  assert.equal(screen.styleOf('∴ The file exists')?.dim, true);

  assert.match(shown, /export const total: number = 3;/);
  const keyword = screen.styleOf('export const total');
  const name = screen.styleOf('total: number');
  assert.notEqual(keyword?.foreground, undefined, 'the keyword is coloured');
  assert.notEqual(keyword?.foreground, name?.foreground, 'keyword and name differ in colour');
  await quit(screen);
});

test('a long result is folded; ctrl+o opens the transcript with it whole and esc returns', async (context) => {
  const folders = scriptedFolders({
    rules: [
      {
        when: 'count',
        steps: [
          {
            reasoning: 'Counting with seq.\nIt prints one number a line.',
            tools: [bashCall('seq 1 40')],
          },
          { reply: 'Counted to forty.' },
        ],
      },
    ],
  });
  const screen = open(context, folders.model, {
    home: folders.home,
    cwd: folders.workspace,
    rows: 60,
  });
  await screen.waitFor('ask loom');
  await sendIdle(screen, 'count');
  const chat = await screen.waitFor('Counted to forty.');
  assert.match(
    chat,
    /✓ bash seq 1 40\n {2}⎿ 1\n {4}2\n {4}3\n {4}… 38 more lines, ctrl\+o to expand/,
  );
  assert.doesNotMatch(chat, /^ {4}40$/m);

  screen.type(CTRL_O);
  const expanded = await screen.waitFor(/esc returns[\s\S]*\[exit code: 0\]/);
  assert.match(expanded, /transcript · \d+ recent items expanded/);
  assert.match(expanded, /∴ reasoning\nCounting with seq\.\nIt prints one number a line\./);
  assert.match(expanded, /^ {4}39\n {4}40\n {4}\[exit code: 0\]$/m);

  screen.type(KEYS.escape);
  const back = await screen.waitFor(
    (text) => !text.includes('esc returns') && text.includes('default mode'),
  );
  assert.match(back, /Counted to forty\.\n╭─+╮\n│ > +ask loom/);
  await quit(screen);
});

/**
 * The screen is drawn once and cleanly at `columns`: one prompt box whose borders span the whole
 * width, one footer, the first prompt once, and no other border piece anywhere.
 */
function cleanAt(columns: number, prompt: string) {
  return (text: string): boolean => {
    const lines = text.split('\n');
    const tops = lines.filter((line) => line.startsWith('╭'));
    const bottoms = lines.filter((line) => line.startsWith('╰'));
    const borderPieces = lines.filter((line) => /[╭╮╰╯]|──/.test(line));
    return (
      tops.length === 1 &&
      bottoms.length === 1 &&
      tops[0]?.length === columns &&
      tops[0].endsWith('╮') &&
      bottoms[0]?.length === columns &&
      borderPieces.length === 2 &&
      lines.filter((line) => line.includes('default mode')).length === 1 &&
      lines.filter((line) => line === `> ${prompt}`).length === 1
    );
  };
}

test('resizing narrower and wider during and after a turn leaves one clean prompt box and footer', async (context) => {
  const folders = scriptedFolders({
    rules: [
      { when: 'stuck', hang: true },
      {
        when: 'first',
        steps: [
          { tools: [bashCall('echo hello')] },
          { reply: `A first answer. ${'It goes on for a while. '.repeat(8)}` },
        ],
      },
    ],
  });
  const screen = open(context, folders.model, {
    home: folders.home,
    cwd: folders.workspace,
    columns: 100,
    rows: 30,
  });
  await screen.waitFor('ask loom');
  await sendIdle(screen, 'first');
  await screen.waitFor('A first answer.');

  await sendIdle(screen, 'stuck');
  await screen.waitFor('esc interrupt');
  screen.resize(60, 30);
  const narrow = await screen.waitFor(cleanAt(60, 'first'));
  assert.match(narrow, /✓ bash echo hello/);
  assert.match(narrow, /working… enter steers it/);
  screen.resize(90, 30);
  await screen.waitFor(cleanAt(90, 'first'));

  screen.type(KEYS.escape);
  await screen.waitFor('interrupted');
  screen.resize(50, 24);
  await screen.waitFor(cleanAt(50, 'first'));
  screen.resize(120, 24);
  const wide = await screen.waitFor(cleanAt(120, 'first'));
  assert.match(wide, /> stuck\n(.*\n)*interrupted/);
  assert.match(wide, /ask loom/);
  await quit(screen);
});
