/**
 * A key that arrives before React has caught up (a frame drawn but ink's input effect not yet
 * re-run) still meets the latest values. Keys written back to back into the prompt box are
 * tested in prompt-input.test.tsx.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { useState } from 'react';
import { useCurrentInput } from '../../src/tui/use-current-input.js';

/** Appends each key to the text its handler closed over: correct only with the latest handler. */
function Echo() {
  const [text, setText] = useState('');
  useCurrentInput((input) => setText(text + input));
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
