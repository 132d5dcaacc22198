/**
 * The prompt box under ink's test renderer: cursor editing, multi-line entry (Shift+Enter,
 * Alt+Enter, a trailing backslash), a large paste kept whole and shown folded, history from the
 * first and last line, Tab completion of commands and paths, and Ctrl+F as a follow-up. Keys are
 * handled as they are read, so the editor's state is checked at once; frames are awaited.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { cleanup, render } from 'ink-testing-library';
import { PromptInput, type SubmitDelivery } from '../../src/tui/components/prompt-input.js';
import { completionAt } from '../../src/tui/prompt-completion.js';
import { type EditorState, PromptEditor } from '../../src/tui/prompt-editor.js';

const KEY = {
  enter: '\r',
  shiftEnter: '\x1b[13;2u',
  altEnter: '\x1b\r',
  left: '\x1b[D',
  right: '\x1b[C',
  up: '\x1b[A',
  down: '\x1b[B',
  home: '\x1b[H',
  end: '\x1b[F',
  tab: '\t',
  backspace: '\x7f',
  ctrlF: '\x06',
  ctrlA: '\x01',
  ctrlE: '\x05',
  ctrlU: '\x15',
  ctrlK: '\x0b',
  ctrlW: '\x17',
  ctrlD: '\x04',
  pasteStart: '\x1b[200~',
  pasteEnd: '\x1b[201~',
} as const;

afterEach(() => cleanup());

interface Mounted {
  editor: PromptEditor;
  sent: Array<{ text: string; delivery: SubmitDelivery }>;
  type(...keys: string[]): void;
  frame(): string;
  waitForFrame(pattern: RegExp | string): Promise<string>;
}

async function mount(
  options: {
    history?: string[];
    complete?: (state: EditorState) => ReturnType<typeof completionAt>;
  } = {},
): Promise<Mounted> {
  const editor = new PromptEditor(options.history ?? []);
  const sent: Mounted['sent'] = [];
  const view = render(
    <PromptInput
      editor={editor}
      onSubmit={(text, delivery) => sent.push({ text, delivery })}
      placeholder="ask loom"
      {...(options.complete ? { complete: options.complete } : {})}
    />,
  );
  const frame = () => view.lastFrame() ?? '';
  const waitForFrame = (pattern: RegExp | string) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const shown = frame();
        if (typeof pattern === 'string' ? shown.includes(pattern) : pattern.test(shown)) {
          resolve(shown);
          return;
        }
        setImmediate(check);
      };
      check();
    });
  // The key handler is registered once ink listens to stdin.
  await new Promise<void>((resolve) => {
    const check = () => {
      if (view.stdin.listenerCount('readable') > 0) resolve();
      else setImmediate(check);
    };
    check();
  });
  return {
    editor,
    sent,
    type: (...keys) => {
      for (const key of keys) view.stdin.write(key);
    },
    frame,
    waitForFrame,
  };
}

test('the cursor moves left, right, home and end, and typing goes in at the cursor', async () => {
  const prompt = await mount();
  prompt.type('helo', KEY.left, 'l');
  assert.equal(prompt.editor.state.text, 'hello');
  prompt.type(KEY.home, '> ', KEY.end, '!', KEY.left, KEY.backspace, KEY.right);
  assert.equal(prompt.editor.state.text, '> hell!');
  assert.equal(prompt.editor.state.cursor, 7);
  await prompt.waitForFrame('> > hell!');
});

test('Shift+Enter, Alt+Enter and a trailing backslash start new lines; Enter sends them all', async () => {
  const prompt = await mount();
  prompt.type('one', KEY.shiftEnter, 'two', KEY.altEnter, 'three\\', KEY.enter, 'four');
  assert.equal(prompt.editor.state.text, 'one\ntwo\nthree\nfour');
  const shown = await prompt.waitForFrame('four');
  assert.match(shown, /> one\s*│\n│\s+two\s*│\n│\s+three\s*│\n│\s+four/);
  prompt.type(KEY.enter);
  assert.deepEqual(prompt.sent, [{ text: 'one\ntwo\nthree\nfour', delivery: 'send' }]);
  assert.equal(prompt.editor.state.text, '');
});

test('a large paste is kept whole, shown folded until sent, and never sent by its line ends', async () => {
  const prompt = await mount();
  const pasted = Array.from({ length: 12 }, (_, index) => `pasted line ${index + 1}`).join('\r');
  prompt.type('see ', KEY.pasteStart, pasted.slice(0, 50));
  prompt.type(pasted.slice(50), KEY.pasteEnd, ' please');
  assert.equal(prompt.sent.length, 0, 'the line ends of a paste do not send');
  const shown = await prompt.waitForFrame('[pasted 12 lines]');
  assert.match(shown, /> see \[pasted 12 lines\] please/);
  assert.doesNotMatch(shown, /pasted line 3/);
  prompt.type(KEY.backspace.repeat(7), KEY.backspace);
  assert.equal(prompt.editor.state.text, 'see ', 'the folded paste is deleted as one');
  prompt.type(KEY.pasteStart, pasted, KEY.pasteEnd, KEY.enter);
  assert.deepEqual(prompt.sent, [
    { text: `see ${pasted.replaceAll('\r', '\n')}`, delivery: 'send' },
  ]);
});

test('keys read at once are split: the Enter among them sends what came before it, the rest is typed', async () => {
  const prompt = await mount();
  prompt.type('first\rsecond');
  assert.deepEqual(prompt.sent, [{ text: 'first', delivery: 'send' }]);
  assert.equal(prompt.editor.state.text, 'second');
  prompt.type('x\x7f\n2\x06');
  assert.deepEqual(prompt.sent[1], { text: 'second\n2', delivery: 'followup' });
});

test('a bracketed paste ending in a line end stays in the editor, unsent', async () => {
  const prompt = await mount();
  prompt.type(KEY.pasteStart, 'a\nb\n', KEY.pasteEnd);
  assert.equal(prompt.sent.length, 0);
  assert.equal(prompt.editor.state.text, 'a\nb\n');
});

test('Up and Down walk the history only from the first and last line, keeping the draft', async () => {
  const prompt = await mount({ history: ['older', 'newer\nsecond line'] });
  prompt.type('draft', KEY.shiftEnter, 'more');
  prompt.type(KEY.up);
  assert.equal(prompt.editor.state.text, 'draft\nmore', 'Up on the last line moves the cursor');
  assert.equal(prompt.editor.state.cursor, 4);
  prompt.type(KEY.up);
  assert.equal(prompt.editor.state.text, 'newer\nsecond line');
  prompt.type(KEY.up);
  assert.equal(prompt.editor.state.text, 'newer\nsecond line', 'the cursor went to line one');
  prompt.type(KEY.up);
  assert.equal(prompt.editor.state.text, 'older');
  await prompt.waitForFrame('> older');
  prompt.type(KEY.down);
  assert.equal(prompt.editor.state.text, 'newer\nsecond line');
  prompt.type(KEY.down, KEY.down);
  assert.equal(prompt.editor.state.text, 'draft\nmore', 'past the newest entry the draft returns');
});

test('Tab completes a slash command from the menu; Up and Down choose in it', async () => {
  const prompt = await mount({ complete: (state) => completionAt(state, () => []) });
  prompt.type('/');
  const menu = await prompt.waitForFrame('/help');
  assert.match(menu, /› \/help — list the commands/);
  prompt.type('e');
  await prompt.waitForFrame(/\/exit/);
  prompt.type(KEY.down, KEY.tab);
  assert.equal(prompt.editor.state.text, '/exit ');
  prompt.type(KEY.backspace.repeat(6), '/he', KEY.enter);
  assert.deepEqual(prompt.sent, [{ text: '/help ', delivery: 'send' }], 'Enter takes the choice');
});

test('Tab completes an @path from the workspace list', async () => {
  const paths = ['src/', 'src/app.ts', 'src/tui/', 'src/tui/prompt.tsx', 'README.md'];
  const prompt = await mount({ complete: (state) => completionAt(state, () => paths) });
  prompt.type('look at @pro');
  const shown = await prompt.waitForFrame('@src/tui/prompt.tsx');
  assert.match(shown, /› @src\/tui\/prompt\.tsx/);
  prompt.type(KEY.tab);
  assert.equal(prompt.editor.state.text, 'look at @src/tui/prompt.tsx ');
  prompt.type('and @s', KEY.tab);
  assert.equal(prompt.editor.state.text, 'look at @src/tui/prompt.tsx and @src/');
  prompt.type('a', KEY.tab);
  assert.equal(prompt.editor.state.text, 'look at @src/tui/prompt.tsx and @src/app.ts ');
});

test('Ctrl+F sends the prompt as a follow-up', async () => {
  const prompt = await mount();
  prompt.type('after this turn', KEY.ctrlF);
  assert.deepEqual(prompt.sent, [{ text: 'after this turn', delivery: 'followup' }]);
});

test('Ctrl+A/E move along the line, Ctrl+W/U/K/D delete, and a character outside the BMP moves as one', async () => {
  const prompt = await mount();
  prompt.type('say 👋 to them', KEY.ctrlW);
  assert.equal(prompt.editor.state.text, 'say 👋 to ');
  prompt.type(KEY.left, KEY.left, KEY.left, KEY.left, KEY.backspace);
  assert.equal(prompt.editor.state.text, 'say  to ', 'the emoji was deleted whole');
  prompt.type(KEY.ctrlA, KEY.ctrlD);
  assert.equal(prompt.editor.state.text, 'ay  to ');
  prompt.type(KEY.right, KEY.right, KEY.ctrlK);
  assert.equal(prompt.editor.state.text, 'ay');
  prompt.type(KEY.ctrlE, ' now', KEY.left, KEY.ctrlU);
  assert.equal(prompt.editor.state.text, 'w');
  await prompt.waitForFrame(/> w/);
});
