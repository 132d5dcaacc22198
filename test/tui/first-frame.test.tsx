/**
 * The first frame drawn before ink loads (src/tui/first-frame.ts): the same prompt box,
 * placeholder and mode line as ink's components draw, byte for byte with colours; the wrapping
 * of a narrow box; and the hand-over: ink's takeover erases exactly the drawn rows (more after a
 * narrowing reflowed them), and a write by anyone else first erases the frame.
 */
import './output-force-color.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import { IDLE_PLACEHOLDER } from '../../src/tui/chrome-text.js';
import { Footer } from '../../src/tui/components/footer.js';
import { PromptInput } from '../../src/tui/components/prompt-input.js';
import type { FooterState } from '../../src/tui/contract.js';
import {
  colorsEnabled,
  drawFirstFrame,
  firstFrameLines,
  wrapWords,
} from '../../src/tui/first-frame.js';
import { PromptEditor } from '../../src/tui/prompt-editor.js';
import { frameMatching } from './output-frames.js';

const FOOTER: FooterState = {
  model: 'scripted:model.json',
  workspace: '/work/project',
  contextTokens: 0,
  tokens: { input: 0, output: 0 },
  runningChildren: 0,
  runningJobs: 0,
  runningWorkflows: 0,
  mode: 'default',
  busy: false,
  queued: 0,
};

test("the first frame's box, placeholder and mode line are ink's, colours included", async () => {
  // ink-testing-library draws 100 columns wide.
  const view = render(
    <>
      <PromptInput
        editor={new PromptEditor([])}
        onSubmit={() => {}}
        placeholder={IDLE_PLACEHOLDER}
      />
      <Footer footer={FOOTER} />
    </>,
  );
  try {
    const frame = await frameMatching(view.lastFrame, (plain) => plain.includes('default mode'));
    const inkLines = frame.split('\n');
    const drawn = firstFrameLines({ columns: 100, workspace: '/work/project', colors: true });
    assert.equal(drawn.length, inkLines.length);
    assert.deepEqual(drawn.slice(0, 3), inkLines.slice(0, 3));
    assert.equal(drawn[4], inkLines[4]);
    // The footer's first line names the workspace only: the model and the counts come with ink.
    assert.equal(drawn[3], '\u001b[2m/work/project\u001b[22m');
  } finally {
    view.unmount();
  }
});

test('a narrow first frame wraps the placeholder as ink does and keeps every line within the width', () => {
  const lines = firstFrameLines({ columns: 60, workspace: '/w', colors: false });
  assert.deepEqual(lines.slice(0, 4), [
    `╭${'─'.repeat(58)}╮`,
    '│ >  ask loom, / for commands, @ for files, ! for a shell  │',
    `│ command${' '.repeat(49)} │`,
    `╰${'─'.repeat(58)}╯`,
  ]);
  for (const columns of [20, 23, 37, 41, 80]) {
    const widths = firstFrameLines({ columns, workspace: `/${'x'.repeat(90)}`, colors: false }).map(
      (line) => [...line].length,
    );
    assert.ok(
      widths.every((width) => width === columns || width <= columns),
      `${columns}: ${widths}`,
    );
    assert.equal(widths[0], columns);
  }
  assert.deepEqual(firstFrameLines({ columns: 19, workspace: '/w', colors: false }), []);
  assert.deepEqual(wrapWords('ab cdefgh ij', 4), ['ab ', 'cdef', 'gh ', 'ij']);
  assert.deepEqual(wrapWords('>  ask', 10), ['>  ask']);
});

test('the first frame hands over: the erase covers the drawn rows once, and a foreign write erases it first', () => {
  const written: string[] = [];
  const errors: string[] = [];
  const output = fakeStream(written, 60);
  const errorStream = fakeStream(errors, 60);
  const frame = drawFirstFrame(output, errorStream, {
    columns: 60,
    workspace: '/w',
    colors: false,
  });
  const lines = firstFrameLines({ columns: 60, workspace: '/w', colors: false });
  assert.equal(written.length, 1);
  assert.ok(written[0]?.endsWith(`${lines.join('\n')}\n`));
  const erase = frame.takeOver();
  assert.equal(erase, `\r\u001b[2K${'\u001b[1A\u001b[2K'.repeat(lines.length)}`);
  assert.equal(frame.takeOver(), '');
  frame.clear();
  errorStream.write('later\n');
  assert.deepEqual(errors, ['later\n']);
  assert.equal(written.length, 1, 'after the takeover nothing else is written');

  // A message on stderr before ink: the frame goes first, once, and the cursor comes back.
  const second: string[] = [];
  const secondErrors: string[] = [];
  const secondOutput = fakeStream(second, 60);
  const secondErrorStream = fakeStream(secondErrors, 60);
  const other = drawFirstFrame(secondOutput, secondErrorStream, {
    columns: 60,
    workspace: '/w',
    colors: false,
  });
  secondErrorStream.write('loom: a warning\n');
  secondErrorStream.write('loom: another\n');
  assert.deepEqual(second.slice(1), [`${erase}\u001b[?25h`]);
  assert.deepEqual(secondErrors, ['loom: a warning\n', 'loom: another\n']);
  assert.equal(other.takeOver(), '');

  // Narrowed to 30 columns before ink: each 60-wide row was reflowed onto two.
  const third: string[] = [];
  const thirdOutput = fakeStream(third, 60);
  const narrowed = drawFirstFrame(thirdOutput, fakeStream([], 60), {
    columns: 60,
    workspace: '/w',
    colors: false,
  });
  (thirdOutput as { columns: number }).columns = 30;
  const rows = lines.reduce((sum, line) => sum + Math.max(1, Math.ceil([...line].length / 30)), 0);
  assert.equal(narrowed.takeOver(), `\r\u001b[2K${'\u001b[1A\u001b[2K'.repeat(rows)}`);
});

test('colours follow NO_COLOR, FORCE_COLOR=0 and a dumb terminal', () => {
  assert.equal(colorsEnabled({ TERM: 'xterm-256color' }), true);
  assert.equal(colorsEnabled({ TERM: 'xterm-256color', NO_COLOR: '1' }), false);
  assert.equal(colorsEnabled({ TERM: 'xterm-256color', FORCE_COLOR: '0' }), false);
  assert.equal(colorsEnabled({ TERM: 'dumb' }), false);
});

function fakeStream(written: string[], columns: number): NodeJS.WriteStream {
  return {
    columns,
    write(chunk: string) {
      written.push(chunk);
      return true;
    },
  } as unknown as NodeJS.WriteStream;
}
