/**
 * Tool lines as the chat draws them: one mark and label per status, a short result folded with
 * a hint for Ctrl+O, errors in the status colour, and `edit_file` / `write_file` as coloured
 * diffs; the transcript view's `expanded` form shows everything.
 */
import './output-force-color.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import { describeArguments, ToolLine } from '../../src/tui/components/tool-line.js';
import type { ToolLineState, ToolStatus } from '../../src/tui/contract.js';
import { plain } from './output-frames.js';

const RED = '\u001b[31m';
const GREEN = '\u001b[32m';

function frameOf(tool: ToolLineState, expanded = false): string {
  const { lastFrame, unmount } = render(<ToolLine tool={tool} expanded={expanded} />);
  const frame = lastFrame() ?? '';
  unmount();
  return frame;
}

function call(status: ToolStatus, more: Partial<ToolLineState> = {}): ToolLineState {
  return {
    callId: 'c1',
    name: 'bash',
    arguments: { command: 'ls -la src' },
    status,
    ...(status === 'running' ? {} : { result: 'a.ts' }),
    ...more,
  };
}

test('each status has its own mark, and every status but done is named on the line', () => {
  const expected: Record<ToolStatus, RegExp> = {
    running: /^… bash ls -la src · running$/m,
    done: /^✓ bash ls -la src$/m,
    failed: /^✗ bash ls -la src · failed$/m,
    denied: /^⊘ bash ls -la src · denied$/m,
    cancelled: /^◌ bash ls -la src · cancelled$/m,
  };
  for (const [status, line] of Object.entries(expected) as Array<[ToolStatus, RegExp]>) {
    assert.match(plain(frameOf(call(status))), line, status);
  }
});

test('a running call shows no result; an ended call shows its result under the line', () => {
  assert.doesNotMatch(plain(frameOf(call('running'))), /⎿/);
  assert.match(plain(frameOf(call('done'))), /^ {2}⎿ a\.ts$/m);
  assert.match(plain(frameOf(call('done', { result: '' }))), /⎿ \(no output\)/);
});

test('a failed or denied call shows its error in red', () => {
  const failed = frameOf(call('failed', { result: 'exit code 2: no such file' }));
  assert.match(plain(failed), /⎿ exit code 2: no such file/);
  assert.ok(failed.includes(`${RED}  ⎿ exit code 2`), failed);
  const denied = frameOf(call('denied', { result: 'denied by rule bash(rm *)' }));
  assert.ok(denied.includes(`${RED}  ⎿ denied by rule`), denied);
});

test('a long result is folded to its first lines with a ctrl+o hint; expanded shows it all', () => {
  const result = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join('\n');
  const folded = plain(frameOf(call('done', { result })));
  assert.match(folded, /⎿ line 1\n {4}line 2\n {4}line 3\n {4}… 7 more lines, ctrl\+o to expand/);
  assert.doesNotMatch(folded, /line 4/);
  const expanded = plain(frameOf(call('done', { result }), true));
  assert.match(expanded, /line 10/);
  assert.doesNotMatch(expanded, /more lines/);
});

test('a long result line is cut to the width in the chat, never wrapped', () => {
  const frame = plain(frameOf(call('done', { result: 'x'.repeat(300) })));
  assert.equal(frame.split('\n').length, 2, frame);
  assert.match(frame, /x…$/m);
});

test('the line names what a call is about: its path, command, pattern or workflow name', () => {
  assert.equal(describeArguments({ path: 'src/a.ts', offset: 3 }), 'src/a.ts');
  assert.equal(describeArguments({ pattern: 'TODO', path: 'src' }), 'TODO in src');
  assert.equal(describeArguments({ pattern: '**/*.ts' }), '**/*.ts');
  assert.equal(describeArguments({ command: 'npm\n  test' }), 'npm test');
  assert.equal(
    describeArguments({ meta: { name: 'review', description: 'checks each file' }, script: 'x' }),
    'review: checks each file',
  );
  assert.equal(describeArguments({ limit: 3 }), '{"limit":3}');
  assert.equal(describeArguments(undefined), '');
});

test('edit_file shows its edit as a diff: removed lines red with -, added lines green with +', () => {
  const frame = frameOf({
    callId: 'c2',
    name: 'edit_file',
    arguments: {
      path: 'src/a.ts',
      old_string: 'const a = 1;\nconst b = 2;\nconst c = 3;',
      new_string: 'const a = 1;\nconst b = 20;\nconst c = 3;',
    },
    status: 'done',
    result: 'replaced 1 occurrence in src/a.ts',
  });
  assert.match(
    plain(frame),
    /✓ edit_file src\/a\.ts\n {2}⎿ replaced 1 occurrence in src\/a\.ts\n {6}const a = 1;\n {4}- const b = 2;\n {4}\+ const b = 20;\n {6}const c = 3;/,
  );
  assert.ok(frame.includes(`${RED}    - const b = 2;`), frame);
  assert.ok(frame.includes(`${GREEN}    + const b = 20;`), frame);
});

test('write_file shows the written content as added lines, folded when long', () => {
  const content = Array.from({ length: 30 }, (_, index) => `row ${index + 1}`).join('\n');
  const tool: ToolLineState = {
    callId: 'c3',
    name: 'write_file',
    arguments: { path: 'b.txt', content },
    status: 'done',
    result: 'wrote 200 bytes to b.txt (created)',
  };
  const folded = frameOf(tool);
  assert.ok(folded.includes(`${GREEN}    + row 1`), folded);
  assert.match(plain(folded), /\+ row 12\n {4}… 18 more lines, ctrl\+o to expand/);
  assert.doesNotMatch(plain(folded), /row 13/);
  assert.match(plain(frameOf(tool, true)), /\+ row 30/);
});

test('an edit that failed or is still running shows no diff', () => {
  const edit = {
    callId: 'c4',
    name: 'edit_file',
    arguments: { path: 'a.ts', old_string: 'x', new_string: 'y' },
  };
  const failed = plain(frameOf({ ...edit, status: 'failed', result: 'old_string was not found' }));
  assert.doesNotMatch(failed, /[-+] [xy]/);
  assert.doesNotMatch(plain(frameOf({ ...edit, status: 'running' })), /[-+] [xy]/);
});

function program(status: ToolStatus, children: ToolLineState[]): ToolLineState {
  return {
    callId: 'p1',
    name: 'run_code',
    arguments: { code: "return await tools.read_file({ path: 'a.ts' });" },
    status,
    ...(status === 'running' ? {} : { result: '{"value":1}' }),
    children,
  };
}

function inner(index: number, status: ToolStatus, result?: string): ToolLineState {
  return {
    callId: `p1.${index}`,
    name: 'read_file',
    arguments: { path: `f${index}.ts` },
    status,
    ...(result !== undefined ? { result } : {}),
  };
}

test('a running program shows its inner calls under it, each with its own status', () => {
  const frame = plain(
    frameOf(
      program('running', [
        inner(1, 'done', 'one'),
        inner(2, 'running'),
        inner(3, 'failed', 'ENOENT: f3.ts'),
      ]),
    ),
  );
  assert.equal(
    frame,
    [
      "… run_code return await tools.read_file({ path: 'a.ts' }); · running",
      '  ✓ read_file f1.ts',
      '  … read_file f2.ts · running',
      '  ✗ read_file f3.ts · failed: ENOENT: f3.ts',
    ].join('\n'),
  );
});

test('an ended program shows its inner calls, then its own result; cancelled ones say so', () => {
  const frame = plain(
    frameOf(
      program('cancelled', [inner(1, 'cancelled', 'aborted'), inner(2, 'cancelled', 'aborted')]),
    ),
  );
  assert.match(
    frame,
    /^◌ run_code .* · cancelled\n {2}◌ read_file f1\.ts · cancelled\n {2}◌ read_file f2\.ts · cancelled\n {2}⎿ \{"value":1\}$/,
  );
});

test('many inner calls fold: the latest while running, the first once ended, all expanded', () => {
  const children = Array.from({ length: 8 }, (_, index) =>
    inner(index + 1, 'done', `text ${index + 1}`),
  );
  const running = plain(frameOf(program('running', children)));
  assert.match(running, /running\n {2}… 3 earlier calls\n {2}✓ read_file f4\.ts\n/);
  assert.match(running, /f8\.ts$/);
  assert.doesNotMatch(running, /f3\.ts/);
  const ended = plain(frameOf(program('done', children)));
  assert.match(
    ended,
    /✓ read_file f5\.ts\n {2}… 3 more calls, ctrl\+o to expand\n {2}⎿ \{"value":1\}/,
  );
  assert.doesNotMatch(ended, /f6\.ts/);
  const expanded = plain(frameOf(program('done', children), true));
  assert.match(expanded, /✓ read_file f8\.ts\n {4}⎿ text 8/);
  assert.doesNotMatch(expanded, /more calls/);
});
