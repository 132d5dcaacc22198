/**
 * What the transcript draws besides tool lines: reasoning dimmed on one line (whole when
 * expanded), Markdown with highlighted code, streaming text kept within the screen, shell output
 * folded, and the transcript view that shows everything and scrolls.
 */
import './output-force-color.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import { LiveItems } from '../../src/tui/components/live-items.js';
import { Markdown, renderMarkdown } from '../../src/tui/components/markdown.js';
import { ReasoningLine } from '../../src/tui/components/reasoning-line.js';
import { TranscriptItemView } from '../../src/tui/components/transcript-item.js';
import { TranscriptView } from '../../src/tui/components/transcript-view.js';
import type { TranscriptItem } from '../../src/tui/contract.js';
import { frameMatching, plain } from './output-frames.js';

const DIM = '\u001b[2m';

test('reasoning is dimmed and collapsed to one line with a ctrl+o hint when cut', () => {
  const text = `First I read the file.\n\n${'Then I weigh the options. '.repeat(10)}`;
  const { lastFrame } = render(<ReasoningLine text={text} width={60} />);
  const frame = lastFrame() ?? '';
  assert.equal(plain(frame).split('\n').length, 1, plain(frame));
  assert.match(plain(frame), /^∴ First I read the file\. Then I weigh.*… · ctrl\+o$/);
  assert.ok(frame.includes(DIM), frame);
  const short = render(<ReasoningLine text="Quick check." width={60} />);
  assert.equal(plain(short.lastFrame()), '∴ Quick check.');
});

test('expanded reasoning shows every line of it', () => {
  const text = 'First line.\nSecond line.\nThird line.';
  const { lastFrame } = render(<ReasoningLine text={text} width={60} expanded />);
  assert.equal(plain(lastFrame()), '∴ reasoning\nFirst line.\nSecond line.\nThird line.');
});

test('Markdown code blocks are highlighted', () => {
  const rendered = renderMarkdown('Look:\n\n```ts\nconst answer: number = 42;\n```', 60);
  assert.match(plain(rendered), /const answer: number = 42;/);
  const codeLine = rendered.split('\n').find((line) => line.includes('answer')) ?? '';
  assert.notEqual(codeLine, plain(codeLine), 'the code line carries colours');
});

test('streaming text taller than the room shows only its last rows, with a note', () => {
  const text = Array.from({ length: 30 }, (_, index) => `paragraph ${index + 1}`).join('\n\n');
  const { lastFrame } = render(<Markdown text={text} width={60} tailRows={6} />);
  const frame = plain(lastFrame());
  assert.equal(frame.split('\n').length, 6, frame);
  assert.match(frame, /^↑ \d+ more lines above\n/);
  assert.match(frame, /paragraph 30$/);
  const whole = render(<Markdown text="short" width={60} tailRows={6} />);
  assert.equal(plain(whole.lastFrame()), 'short');
});

test('shell output is folded in the chat and whole when expanded', () => {
  const item: TranscriptItem = {
    kind: 'shell',
    id: 's1',
    command: 'seq 20',
    output: `${Array.from({ length: 20 }, (_, index) => index + 1).join('\n')}\n`,
    exitCode: 0,
  };
  const folded = plain(render(<TranscriptItemView item={item} width={60} />).lastFrame());
  assert.match(folded, /^! seq 20\n1\n(.*\n){7}… 12 more lines, ctrl\+o to expand$/);
  const expanded = plain(
    render(<TranscriptItemView item={item} width={60} expanded />).lastFrame(),
  );
  assert.match(expanded, /\n20$/);
});

test("a compaction's summary is folded under its line in the chat and whole when expanded", () => {
  const item: TranscriptItem = {
    kind: 'context',
    id: 'c1',
    text: 'compacted: 2 turns (11 steps) summarized (12k → 3.1k tokens)',
    detail: '## Task\nRead the files.\n## Next\nReport.',
  };
  const folded = plain(render(<TranscriptItemView item={item} width={80} />).lastFrame());
  assert.equal(
    folded,
    'compacted: 2 turns (11 steps) summarized (12k → 3.1k tokens)\n  … 4 more lines, ctrl+o to expand',
  );
  const expanded = plain(
    render(<TranscriptItemView item={item} width={80} expanded />).lastFrame(),
  );
  assert.match(
    expanded,
    /summarized \(12k → 3\.1k tokens\)\n {2}## Task\n {2}Read the files\.\n {2}## Next\n {2}Report\.$/,
  );
  const pruning: TranscriptItem = {
    kind: 'context',
    id: 'c2',
    text: 'compacted: 3 tool results pruned',
  };
  assert.equal(
    plain(render(<TranscriptItemView item={pruning} width={80} />).lastFrame()),
    pruning.text,
  );
});

function longTranscript(): TranscriptItem[] {
  return [
    { kind: 'user', id: 'u1', text: 'count for me' },
    { kind: 'reasoning', id: 'r1', text: 'I will count.\nThen report.' },
    {
      kind: 'tool',
      id: 't1',
      tool: {
        callId: 'c1',
        name: 'bash',
        arguments: { command: 'seq 40' },
        status: 'done',
        result: Array.from({ length: 40 }, (_, index) => `n${index + 1}`).join('\n'),
      },
    },
    { kind: 'assistant', id: 'a1', text: 'Counted to forty.' },
  ];
}

test('the transcript view shows the recent items expanded, starting at the end', async () => {
  const { lastFrame } = render(<TranscriptView items={longTranscript()} width={80} />);
  const frame = await frameMatching(lastFrame, (text) => text.includes('rows above'));
  const text = plain(frame);
  assert.match(text, /^transcript · 4 recent items expanded · .* \(\d+ rows above\) · esc returns/);
  assert.match(text, /Counted to forty\.$/);
  assert.match(text, /n40/);
  assert.doesNotMatch(text, /more lines, ctrl\+o/);
  // The window fits the terminal (24 rows without a size): title + 15 rows.
  assert.equal(text.split('\n').length, 16, text);
});

test('the transcript view scrolls up to the start and back down with the keys', async () => {
  const { lastFrame, stdin } = render(<TranscriptView items={longTranscript()} width={80} />);
  await frameMatching(lastFrame, (text) => text.includes('rows above'));
  stdin.write('\u001b[5~'); // Page Up
  const paged = await frameMatching(lastFrame, (text) => text.includes('rows below'));
  assert.doesNotMatch(plain(paged), /Counted to forty/);
  stdin.write('g');
  const top = plain(await frameMatching(lastFrame, (text) => !text.includes('rows above')));
  assert.match(
    top,
    /> count for me\n∴ reasoning\nI will count\.\nThen report\.\n✓ bash seq 40\n {2}⎿ n1\n/,
  );
  stdin.write('\u001b[B'); // Down
  await frameMatching(lastFrame, (text) => /\(1 rows above/.test(text));
  stdin.write('G');
  const end = plain(await frameMatching(lastFrame, (text) => !text.includes('rows below')));
  assert.match(end, /Counted to forty\.$/);
});

test('a short transcript view takes only the rows it needs', async () => {
  const items: TranscriptItem[] = [{ kind: 'assistant', id: 'a1', text: 'Just this.' }];
  const { lastFrame } = render(<TranscriptView items={items} width={80} />);
  const frame = plain(await frameMatching(lastFrame, (text) => text.includes('Just this.')));
  assert.match(
    frame,
    /^transcript · 1 recent items expanded · ↑↓ pgup pgdn scroll · esc returns\n\nJust this\.$/,
  );
});

test('the live items stay within their rows: many running tools fold, streaming text keeps its end', () => {
  const tools: TranscriptItem[] = Array.from({ length: 12 }, (_, index) => ({
    kind: 'tool',
    id: `t${index}`,
    tool: {
      callId: `c${index}`,
      name: 'subagent',
      arguments: { description: `helper ${index + 1}` },
      status: 'running',
    },
  }));
  const streaming: TranscriptItem = {
    kind: 'assistant',
    id: 'a1',
    text: Array.from({ length: 40 }, (_, index) => `line ${index + 1}`).join('\n\n'),
  };
  const { lastFrame } = render(<LiveItems items={[...tools, streaming]} width={60} rows={18} />);
  const frame = plain(lastFrame());
  assert.ok(frame.split('\n').length <= 18, frame);
  assert.match(frame, /^… subagent helper 1 · running\n(… subagent helper \d · running\n){5}\n↑/);
  assert.doesNotMatch(frame, /helper 7/);
  assert.match(frame, /↑ \d+ more lines above/);
  assert.match(frame, /line 40\n… 6 more running tools$/);
});

test("the live items count a running program's inner call lines within their rows", () => {
  const children = Array.from({ length: 9 }, (_, index) => ({
    callId: `p.${index + 1}`,
    name: 'read_file',
    arguments: { path: `f${index + 1}.ts` },
    status: 'running' as const,
  }));
  const program: TranscriptItem = {
    kind: 'tool',
    id: 't-p',
    tool: { callId: 'p', name: 'run_code', arguments: { code: 'x' }, status: 'running', children },
  };
  const other: TranscriptItem = {
    kind: 'tool',
    id: 't-q',
    tool: { callId: 'q', name: 'bash', arguments: { command: 'ls' }, status: 'running' },
  };
  const streaming: TranscriptItem = {
    kind: 'assistant',
    id: 'a1',
    text: Array.from({ length: 40 }, (_, index) => `line ${index + 1}`).join('\n\n'),
  };
  const { lastFrame } = render(
    <LiveItems items={[program, other, streaming]} width={60} rows={18} />,
  );
  const frame = plain(lastFrame());
  assert.ok(frame.split('\n').length <= 18, frame);
  assert.match(
    frame,
    /^… run_code x · running\n {2}… 4 earlier calls\n( {2}… read_file f\d\.ts · running\n){5}\n↑/,
  );
  assert.match(frame, /line 40\n… 1 more running tool$/);
});
