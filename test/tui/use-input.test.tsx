/**
 * Keys that arrive before React has caught up (a frame drawn but ink's input effect not yet
 * re-run, or several keys before the next frame: fast typing, keys queued while the process is
 * busy) still meet the latest values: none is lost or applied to older text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { useState } from 'react';
import { PromptInput } from '../../src/tui/components/prompt-input.js';
import { useInput } from '../../src/tui/use-input.js';

function Prompt() {
  const [value, setValue] = useState('');
  return <PromptInput value={value} onChange={setValue} onSubmit={() => {}} history={[]} />;
}

/** Appends each key to the text its handler closed over: correct only with the latest handler. */
function Echo() {
  const [text, setText] = useState('');
  useInput((input) => setText(text + input));
  return <Text>{`[${text}]`}</Text>;
}

async function frameMatching(frame: () => string | undefined, pattern: RegExp): Promise<string> {
  for (;;) {
    const shown = frame() ?? '';
    if (pattern.test(shown)) return shown;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The first frame drawn after `before`. */
async function nextFrame(frame: () => string | undefined, before: string): Promise<string> {
  for (;;) {
    const shown = frame() ?? '';
    if (shown !== before) return shown;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('a key arriving once a frame is drawn, before React re-runs effects, meets that frame', async () => {
  const app = render(<Echo />);
  try {
    await frameMatching(app.lastFrame, /\[\]/);
    app.stdin.write('a');
    // React draws the frame in one task and re-runs effects in a later one: write in between.
    const drawn = await frameMatching(app.lastFrame, /\[a\]/);
    app.stdin.write('b');
    assert.equal(await nextFrame(app.lastFrame, drawn), '[ab]');
  } finally {
    app.unmount();
  }
});

test('keys written back to back before a frame all reach the prompt box, in order', async () => {
  const app = render(<Prompt />);
  try {
    await frameMatching(app.lastFrame, /│ > +│/);
    app.stdin.write('a');
    const drawn = await frameMatching(app.lastFrame, /> a /);
    app.stdin.write('b');
    app.stdin.write('c');
    app.stdin.write('d');
    app.stdin.write('\x7f');
    app.stdin.write('e');
    assert.match(await nextFrame(app.lastFrame, drawn), /> abce /);
  } finally {
    app.unmount();
  }
});
