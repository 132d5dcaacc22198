/**
 * `/rewind` and `/diff` in `loom` in a real pseudo-terminal with the scripted model. Two turns
 * (made with `loom run`, then reopened with `--resume`) change a text and a binary file; `/diff`
 * lists what the session changed with its lines and the patch; `/rewind` lists the turns with
 * their changes, restores the files byte for byte after showing the diff it applies, or forks the
 * conversation into a new session whose transcript is the one before the turn. With
 * `checkpoints.enabled: false` only the conversation is offered, and it says why; while a turn
 * runs it is refused. Needs
 * `npm run build`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { SessionStore } from '../../src/core/session-store.js';
import { runScripted, type ScriptedFolders, scriptedFolders } from '../cli/loom-process.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { KEYS, type ScreenRun, send, startScreen } from './pty-screen.js';

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

/** Binary bytes turn one writes and turn two changes (a NUL, a lone CR, a high byte). */
const BINARY_ONE = Buffer.from([0, 1, 13, 255, 10]);

function twoTurnFolders(): ScriptedFolders {
  return scriptedFolders({
    rules: [
      callsThenReply(
        '^first change$',
        [
          { name: 'write_file', arguments: { path: 'a.txt', content: 'one\r\nline two\n' } },
          bashCall("printf '\\000\\001\\r\\377\\n' > data.bin"),
        ],
        'made a.txt',
      ),
      callsThenReply(
        '^second change$',
        [
          {
            name: 'edit_file',
            arguments: { path: 'a.txt', old_string: 'line two', new_string: 'line 2' },
          },
          bashCall("printf '\\002' >> data.bin && echo new > c.txt"),
        ],
        'changed a.txt',
      ),
      { when: '^hang$', hang: true },
      { when: '.*', reply: 'answer to {{prompt}}' },
    ],
  });
}

/** Runs the two turns headless and resolves with the session's id. */
async function twoTurns(folders: ScriptedFolders): Promise<string> {
  const first = await runScripted(folders, 'first change');
  assert.equal(first.code, 0, first.stderr);
  const file = readdirSync(join(folders.home, 'sessions')).find((name) => name.endsWith('.jsonl'));
  assert.ok(file, 'the first run made a session');
  const id = file.slice(0, -'.jsonl'.length);
  const second = await runScripted(folders, 'second change', { args: ['--session', id] });
  assert.equal(second.code, 0, second.stderr);
  return id;
}

function resume(folders: ScriptedFolders, id: string, columns = 160): ScreenRun {
  const screen = startScreen(['--model', `scripted:${folders.model}`, '--resume', id], {
    home: folders.home,
    cwd: folders.workspace,
    columns,
    rows: 50,
  });
  screens.push(screen);
  return screen;
}

const eventsOf = (home: string, id: string) =>
  loadSessionFile(new SessionStore(home).pathOf(id)).events;

const userTexts = (home: string, id: string) =>
  eventsOf(home, id)
    .filter((event) => event.type === 'user/message')
    .map((event) => (event.data as { text: string }).text);

/** The screen's text after the last line containing `marker`. */
function after(screen: string, marker: string): string {
  return screen.slice(screen.lastIndexOf(marker));
}

test('/diff lists what the session changed with its lines, then the patch, capped with the command that prints all of it', async () => {
  const folders = twoTurnFolders();
  const id = await twoTurns(folders);
  // A change no tool of the session made is in the diff too; its 80 lines go past the cap.
  const typed = Array.from({ length: 80 }, (_, index) => `typed ${index + 1}\n`).join('');
  writeFileSync(join(folders.workspace, 'by-hand.txt'), typed);
  const screen = resume(folders, id, 260);
  await screen.waitFor('changed a.txt');
  await send(screen, '/diff');
  await screen.waitFor('changed since this session began (4 paths):');
  const shown = after(
    await screen.waitFor(/more lines of the patch; all of it: .* \(loom sessions diff/),
    'changed since this session began',
  );
  assert.match(shown, /^ {2}A a\.txt \+2 -0$/m);
  assert.match(shown, /^ {2}A by-hand\.txt \+80 -0$/m);
  assert.match(shown, /^ {2}A c\.txt \+1 -0$/m);
  assert.match(shown, /^ {2}A data\.bin binary$/m);
  assert.match(shown, /^diff --git a\/a\.txt b\/a\.txt$/m);
  assert.match(shown, /^\+one\^M$/m);
  assert.match(shown, /^\+line 2$/m);
  assert.match(shown, /^\+typed 30$/m);
  assert.doesNotMatch(shown, /^\+typed 80$/m);
  const command =
    /all of it: git --git-dir=(\S+) diff ([0-9a-f]{40}) ([0-9a-f]{40}) \(loom sessions diff (\S+) lists the paths\)$/m.exec(
      shown,
    );
  assert.ok(command, shown);
  assert.equal(command[4], id);
  const whole = execFileSync('git', [
    `--git-dir=${command[1]}`,
    'diff',
    command[2] ?? '',
    command[3] ?? '',
  ]);
  assert.match(whole.toString('utf8'), /^\+typed 80$/m);
  screen.type(KEYS.ctrlD);
  assert.equal((await screen.exited).exitCode, 0);
});

test('/rewind restores the files as a turn began, byte for byte, after showing the diff it applies', async () => {
  const folders = twoTurnFolders();
  const id = await twoTurns(folders);
  const screen = resume(folders, id);
  await screen.waitFor('changed a.txt');
  await send(screen, '/rewind');
  const list = await screen.waitFor('enter picks · esc returns');
  assert.match(list, /^│ {3}1\. first change — 2 files \+2 -0 +│$/m);
  assert.match(list, /^│ › 2\. second change — 3 files \+2 -1 \(to now\) +│$/m);
  assert.match(list, /^│ {5}M a\.txt \+1 -1 +│$/m);
  screen.type('2');
  screen.type(KEYS.enter);
  await screen.waitFor('what goes back?');
  screen.type('2');
  const preview = await screen.waitFor('enter restores · esc goes back');
  assert.match(preview, /restoring the files as turn 2 began will change:/);
  assert.match(preview, /^│ {3}M a\.txt \+1 -1 +│$/m);
  assert.match(preview, /^│ {3}D c\.txt \+0 -1 +│$/m);
  assert.match(preview, /^│ {3}M data\.bin binary +│$/m);
  assert.match(preview, /^│ -line 2 +│$/m);
  assert.match(preview, /^│ \+line two +│$/m);
  assert.match(preview, /^│ {2}one\^M +│$/m);
  // Nothing changes before the confirmation.
  assert.equal(readFileSync(join(folders.workspace, 'c.txt'), 'utf8'), 'new\n');
  screen.type(KEYS.enter);
  await screen.waitFor('files: restored as turn 2 began (3 paths):');
  assert.equal(readFileSync(join(folders.workspace, 'a.txt'), 'utf8'), 'one\r\nline two\n');
  assert.deepEqual(readFileSync(join(folders.workspace, 'data.bin')), BINARY_ONE);
  assert.equal(existsSync(join(folders.workspace, 'c.txt')), false);
  // The conversation goes on in the same session, which logged the restore.
  await send(screen, 'after the rewind');
  await screen.waitFor('answer to after the rewind');
  screen.type(KEYS.ctrlD);
  assert.equal((await screen.exited).exitCode, 0);
  const restore = eventsOf(folders.home, id).find((event) => event.type === 'checkpoint/restore');
  assert.ok(restore, 'checkpoint/restore is logged');
  const { turn, tree, before, ...rest } = restore.data as {
    turn: string;
    tree?: string;
    before?: string;
  };
  assert.deepEqual(rest, { number: 2, files: true, conversation: false });
  assert.match(turn, /^turn-\d+$/);
  assert.match(tree ?? '', /^[0-9a-f]{40}$/);
  assert.match(before ?? '', /^[0-9a-f]{40}$/);
  assert.deepEqual(userTexts(folders.home, id), [
    'first change',
    'second change',
    'after the rewind',
  ]);
});

test('/rewind of the conversation only goes on in a forked session showing the transcript before the turn', async () => {
  const folders = twoTurnFolders();
  const id = await twoTurns(folders);
  const screen = resume(folders, id);
  await screen.waitFor('changed a.txt');
  await send(screen, '/rewind');
  await screen.waitFor('enter picks · esc returns');
  screen.type(KEYS.up);
  await screen.waitFor(/› 1\. first change/);
  screen.type(KEYS.down);
  await screen.waitFor(/› 2\. second change/);
  screen.type(KEYS.enter);
  await screen.waitFor('what goes back?');
  screen.type(KEYS.down);
  screen.type(KEYS.down);
  await screen.waitFor(/› 3\. conversation only/);
  screen.type(KEYS.enter);
  const done = await screen.waitFor(/conversation: rewound to before turn 2 in a new session \S+;/);
  const fork = /in a new session (\S+);/.exec(done)?.[1];
  assert.ok(fork && fork !== id, `a new session: ${fork}`);
  assert.match(done, new RegExp(`session ${id} stays whole`));
  // The transcript printed again for the fork: the first turn, not the second.
  const reprinted = done.slice(done.lastIndexOf('changed a.txt') + 'changed a.txt'.length);
  assert.match(reprinted, /^> first change$[\s\S]*^made a\.txt$/m);
  assert.doesNotMatch(reprinted, /second change|changed a\.txt/);
  // The files stay as they are.
  assert.equal(readFileSync(join(folders.workspace, 'c.txt'), 'utf8'), 'new\n');
  await send(screen, 'in the fork');
  await screen.waitFor('answer to in the fork');
  screen.type(KEYS.ctrlD);
  assert.equal((await screen.exited).exitCode, 0);
  assert.match(screen.text(), new RegExp(`resume it with: loom --resume ${fork}`));
  assert.deepEqual(userTexts(folders.home, fork), ['first change', 'in the fork']);
  assert.deepEqual(userTexts(folders.home, id), ['first change', 'second change']);
});

test('/rewind with checkpoints off offers only the conversation and says why', async () => {
  const folders = twoTurnFolders();
  const id = await twoTurns(folders);
  writeFileSync(join(folders.home, 'config.yaml'), 'checkpoints:\n  enabled: false\n');
  const screen = resume(folders, id);
  await screen.waitFor('changed a.txt');
  await send(screen, '/diff');
  await screen.waitFor('checkpoints are off (checkpoints.enabled: false in config)');
  await send(screen, '/rewind');
  const list = await screen.waitFor('enter picks · esc returns');
  assert.match(list, /› 2\. second change — no checkpoint/);
  screen.type(KEYS.enter);
  const choice = await screen.waitFor('what goes back?');
  assert.match(choice, /checkpoints are off \(checkpoints\.enabled: false in config\), so no file/);
  assert.match(choice, /› 1\. conversation only/);
  assert.doesNotMatch(choice, /files only/);
  screen.type(KEYS.escape);
  await screen.waitFor(/› 2\. second change — no checkpoint/);
  screen.type(KEYS.escape);
  await screen.waitFor((text) => !text.includes('enter picks · esc returns'));
  screen.type(KEYS.ctrlD);
  assert.equal((await screen.exited).exitCode, 0);
});

test('/rewind while a turn runs says it waits for an idle session', async () => {
  const folders = twoTurnFolders();
  const id = await twoTurns(folders);
  const screen = resume(folders, id);
  await screen.waitFor('changed a.txt');
  await send(screen, 'hang');
  await screen.waitFor('esc to interrupt');
  await send(screen, '/rewind');
  await screen.waitFor('/rewind waits for an idle session: a turn is running (esc interrupts it)');
  assert.doesNotMatch(screen.text(), /enter picks · esc returns/);
  screen.type(KEYS.escape);
  await screen.waitFor(
    (text) =>
      text.includes('interrupted') &&
      text.includes('ask loom') &&
      !text.includes('esc to interrupt'),
  );
  await send(screen, '/rewind');
  await screen.waitFor('enter picks · esc returns');
  screen.type(KEYS.escape);
  await screen.waitFor((text) => !text.includes('enter picks · esc returns'));
  screen.type(KEYS.ctrlD);
  assert.equal((await screen.exited).exitCode, 0);
  assert.equal(
    eventsOf(folders.home, id).some((event) => event.type === 'checkpoint/restore'),
    false,
  );
});

test('/rewind of files and conversation to the first turn empties the workspace it began with and goes on in an empty fork', async () => {
  const folders = twoTurnFolders();
  const id = await twoTurns(folders);
  const screen = resume(folders, id);
  await screen.waitFor('changed a.txt');
  await send(screen, '/rewind');
  await screen.waitFor('enter picks · esc returns');
  screen.type('1');
  await screen.waitFor(/› 1\. first change/);
  screen.type(KEYS.enter);
  await screen.waitFor('what goes back?');
  screen.type('1');
  const preview = await screen.waitFor('enter restores · esc goes back');
  assert.match(
    preview,
    /restoring the files as turn 1 began will change, and the conversation goes on in a new session from before it:/,
  );
  assert.match(preview, /^│ {3}D a\.txt \+0 -2 +│$/m);
  screen.type(KEYS.enter);
  const done = await screen.waitFor(/conversation: rewound to before turn 1 in a new session \S+;/);
  assert.match(done, /files: restored as turn 1 began \(3 paths\):/);
  const fork = /in a new session (\S+);/.exec(done)?.[1];
  assert.ok(fork && fork !== id);
  assert.deepEqual(readdirSync(folders.workspace), []);
  screen.type(KEYS.ctrlD);
  assert.equal((await screen.exited).exitCode, 0);
  assert.deepEqual(userTexts(folders.home, fork), []);
  assert.deepEqual(userTexts(folders.home, id), ['first change', 'second change']);
});
