/**
 * The prompt and its keys through bin/loom in a pseudo-terminal with the scripted model: Esc
 * interrupting a `hang` rule with the inbox kept, steering at the next step and Ctrl+F follow-ups
 * (the footer counts them), `!command` output joining the conversation, multi-line prompts and a
 * folded paste, completion with Tab, and Ctrl+C / Ctrl+D. Needs `npm run build`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { scriptedFolders } from '../cli/loom-process.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { sessions } from '../helpers/session-files.js';
import { KEYS, send, startScreen } from './pty-screen.js';

const SHIFT_ENTER = '\x1b[13;2u';
const TAB = '\t';
const CTRL_F = '\x06';
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

type UserMessage = SessionEvent<'user/message'>['data'];

const opened: Array<ReturnType<typeof startScreen>> = [];
let finished = 0;
after(() => {
  // A failed test leaves its terminal running; end it so the file can finish.
  if (finished < opened.length) for (const screen of opened) screen.kill();
});

function openScreen(model: unknown) {
  const folders = scriptedFolders(model);
  const screen = startScreen(['--model', `scripted:${folders.model}`], {
    home: folders.home,
    cwd: folders.workspace,
  });
  opened.push(screen);
  void screen.exited.then(() => finished++);
  return { folders, screen };
}

function userMessages(home: string): UserMessage[] {
  return sessions(home).flatMap((session) =>
    session.events
      .filter((event) => event.type === 'user/message')
      .map((event) => event.data as UserMessage),
  );
}

async function exitWithCtrlD(screen: ReturnType<typeof startScreen>): Promise<void> {
  screen.type(KEYS.ctrlD);
  const { exitCode } = await screen.exited;
  assert.equal(exitCode, 0);
}

test('Esc interrupts a hanging turn and keeps the inbox: the queued steer then runs', async () => {
  const { folders, screen } = openScreen({
    rules: [{ when: 'stuck', hang: true }],
    default: { reply: 'ok: {{prompt}}' },
  });
  await screen.waitFor('ask loom');
  await send(screen, 'stuck');
  await screen.waitFor('esc interrupts');
  await send(screen, 'and then this');
  await screen.waitFor('1 queued');
  assert.match(screen.text(), /queued steer: and then this/);
  screen.type(KEYS.escape);
  const shown = await screen.waitFor('ok: and then this');
  assert.match(shown, /interrupted[\s\S]*> and then this[\s\S]*ok: and then this/);
  assert.doesNotMatch(shown, /queued steer|1 queued/, 'the delivered message left the queue');
  await screen.waitFor(/default mode · shift\+tab/);
  await exitWithCtrlD(screen);
  const delivered = userMessages(folders.home).map((message) => message.text);
  assert.deepEqual(delivered, ['stuck', 'and then this']);
});

test('Enter while busy steers at the next step, Ctrl+F follows up after the turn; the footer counts them', async () => {
  const { folders, screen } = openScreen({
    rules: [
      callsThenReply(
        'slow task',
        [bashCall('while [ ! -e go ]; do sleep 0.02; done; echo released')],
        'never used',
      ),
      { when: 'and also (.*)', reply: 'steered: {{1}}' },
    ],
    default: { reply: 'ok: {{prompt}}' },
  });
  await screen.waitFor('ask loom');
  await send(screen, 'slow task');
  await screen.waitFor('esc interrupts · enter steers · ctrl+f follow-up');
  await send(screen, 'and also this');
  await screen.waitFor('1 queued');
  screen.type('later please');
  await screen.waitFor('> later please');
  screen.type(CTRL_F);
  await screen.waitFor('2 queued');
  assert.match(screen.text(), /queued steer: and also this\nqueued follow-up: later please/);
  writeFileSync(join(folders.workspace, 'go'), '');
  const shown = await screen.waitFor('ok: later please');
  assert.match(
    shown,
    /> and also this[\s\S]*steered: this[\s\S]*> later please[\s\S]*ok: later please/,
  );
  assert.doesNotMatch(shown, /queued (steer|follow-up)|\d queued/);
  await exitWithCtrlD(screen);
  const messages = userMessages(folders.home);
  assert.deepEqual(
    messages.map((message) => [message.text, message.delivery]),
    [
      ['slow task', 'followup'],
      ['and also this', 'steer'],
      ['later please', 'followup'],
    ],
  );
  assert.equal(messages[1]?.turnId, messages[0]?.turnId, 'the steer joined the running turn');
  assert.notEqual(messages[2]?.turnId, messages[0]?.turnId, 'the follow-up got its own turn');
});

test('!command shows its output and joins the conversation with the next message', async () => {
  const { folders, screen } = openScreen({
    rules: [{ when: 'what did it print', reply: 'it printed a greeting' }],
  });
  await screen.waitFor('ask loom');
  await send(screen, '!echo hello-from-shell');
  const shown = await screen.waitFor('joins the conversation with your next message');
  assert.match(shown, /! echo hello-from-shell\nhello-from-shell/);
  await send(screen, 'what did it print');
  await screen.waitFor('it printed a greeting');
  await exitWithCtrlD(screen);
  const [shell, question] = userMessages(folders.home);
  assert.equal(shell?.source, 'shell');
  assert.equal(shell?.delivery, 'inject');
  assert.match(shell?.text ?? '', /I ran `echo hello-from-shell` in the workspace \(exit code 0\)/);
  assert.match(shell?.text ?? '', /hello-from-shell\s*$/);
  assert.equal(question?.text, 'what did it print');
  assert.equal(shell?.turnId, question?.turnId, 'the output reached the model with the message');
});

test('a multi-line prompt (trailing backslash, Shift+Enter) and a folded paste are sent whole', async () => {
  const { folders, screen } = openScreen({
    rules: [
      { when: 'pasted line 1\\n[\\s\\S]*pasted line 10$', reply: 'got the whole paste' },
      { when: '^first line\\nsecond line\\nthird line$', reply: 'got three lines' },
    ],
  });
  await screen.waitFor('ask loom');
  await send(screen, 'first line\\');
  await screen.waitFor(/> first line\s*│\n│\s+│/);
  screen.type('second line');
  await screen.waitFor(/> first line\s*│\n│\s+second line/);
  screen.type(SHIFT_ENTER);
  await screen.waitFor(/second line\s*│\n│\s+│/);
  screen.type('third line');
  await screen.waitFor(/second line\s*│\n│\s+third line/);
  screen.type(KEYS.enter);
  await screen.waitFor('got three lines');
  const pasted = Array.from({ length: 10 }, (_, index) => `pasted line ${index + 1}`).join('\r');
  screen.type(`${PASTE_START}${pasted}${PASTE_END}`);
  const folded = await screen.waitFor('[pasted 10 lines]');
  assert.doesNotMatch(folded, /pasted line 5/);
  screen.type(KEYS.enter);
  await screen.waitFor('got the whole paste');
  await exitWithCtrlD(screen);
  const texts = userMessages(folders.home).map((message) => message.text);
  assert.deepEqual(texts, ['first line\nsecond line\nthird line', pasted.replaceAll('\r', '\n')]);
});

test('Tab completes @paths (node_modules skipped) and slash commands; Up recalls the workspace history', async () => {
  const { folders, screen } = openScreen({ default: { reply: 'ok: {{prompt}}' } });
  mkdirSync(join(folders.workspace, 'src'));
  writeFileSync(join(folders.workspace, 'src', 'prompt-box.ts'), '');
  mkdirSync(join(folders.workspace, 'node_modules', 'prompt-lib'), { recursive: true });
  writeFileSync(join(folders.workspace, 'node_modules', 'prompt-lib', 'prompt-x.js'), '');
  await screen.waitFor('ask loom');
  screen.type('explain @prompt');
  const menu = await screen.waitFor('@src/prompt-box.ts');
  assert.doesNotMatch(menu, /node_modules/);
  screen.type(TAB);
  await screen.waitFor('> explain @src/prompt-box.ts');
  screen.type(KEYS.enter);
  await screen.waitFor('ok: explain @src/prompt-box.ts');
  screen.type('/he');
  await screen.waitFor('› /help');
  screen.type(TAB);
  await screen.waitFor(/> \/help\s/);
  screen.type(KEYS.ctrlC);
  await screen.waitFor(/> +ask loom/);
  screen.type(KEYS.up);
  // The prompt box's row, not the transcript's line of the same text.
  await screen.waitFor(/│ > explain @src\/prompt-box\.ts/);
  screen.type(KEYS.ctrlC);
  await screen.waitFor(/│ > +ask loom/);
  await exitWithCtrlD(screen);
  assert.match(screen.text(), /resume it with: loom --resume \d{8}-\d{6}-\w+/);
  // The history is the workspace's: a new process recalls it too.
  const again = startScreen(['--model', `scripted:${folders.model}`], {
    home: folders.home,
    cwd: folders.workspace,
  });
  opened.push(again);
  void again.exited.then(() => finished++);
  await again.waitFor('ask loom');
  again.type(KEYS.up);
  await again.waitFor(/│ > explain @src\/prompt-box\.ts/);
  again.type(KEYS.ctrlC);
  await again.waitFor(/│ > +ask loom/);
  await exitWithCtrlD(again);
});

test('text and Enter written in one chunk (typing ahead, tmux send-keys) send the text; while busy it queues as a steer', async () => {
  const { folders, screen } = openScreen({
    rules: [{ when: 'stuck', hang: true }],
    default: { reply: 'ok: {{prompt}}' },
  });
  await screen.waitFor('ask loom');
  screen.type('hello\r');
  await screen.waitFor('ok: hello');
  screen.type('stuck\r');
  await screen.waitFor('esc interrupts');
  screen.type('ahead\r');
  await screen.waitFor('queued steer: ahead');
  screen.type(KEYS.escape);
  await screen.waitFor('ok: ahead');
  await exitWithCtrlD(screen);
  assert.deepEqual(
    userMessages(folders.home).map((message) => message.text),
    ['hello', 'stuck', 'ahead'],
  );
});

test('a bracketed paste ending in a line end stays in the prompt, unsent, until Enter', async () => {
  const { folders, screen } = openScreen({ default: { reply: 'ok: {{prompt}}' } });
  await screen.waitFor('ask loom');
  screen.type(`${PASTE_START}a\nb\n${PASTE_END}`);
  await screen.waitFor(/> a\s*│\n│ {3}b\s*│\n│\s*│/);
  screen.type('c');
  await screen.waitFor(/> a\s*│\n│ {3}b\s*│\n│ {3}c/);
  assert.equal(userMessages(folders.home).length, 0, 'nothing was sent');
  screen.type(KEYS.enter);
  await screen.waitFor(/ok: a\s+b\s+c/);
  await exitWithCtrlD(screen);
  assert.deepEqual(
    userMessages(folders.home).map((message) => message.text),
    ['a\nb\nc'],
  );
});
