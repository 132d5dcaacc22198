/**
 * The plain `loom run` renderer's tool lines on stderr: a `run_code` program's inner calls are
 * indented under it with their own results (named when another line came between), the
 * program's result last at its own depth; a cancelled program's inner calls end as errors.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { plainRenderer } from '../../src/cli/render-plain.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import {
  abortedProgramEvents,
  CODE,
  programCall,
  programEvents,
  programResult,
  readCall,
  readResult,
  sequence,
} from '../helpers/inner-call-events.js';

function stderrOf(events: readonly SessionEvent[]): string {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const renderer = plainRenderer(stdout, stderr);
  for (const event of events) renderer.render(event);
  renderer.finish();
  return text;
}

const codeGist = JSON.stringify({ code: CODE }).slice(0, 79);

test('inner calls of a program are indented under it, each with its result', () => {
  assert.equal(
    stderrOf(programEvents()),
    [
      `▸ run_code ${codeGist}…`,
      '  ▸ read_file {"path":"a.ts"}',
      '  ▸ grep {"pattern":"TODO"}',
      '    ✓ read_file: export const a = 1;',
      '    ✓ grep: a.ts:3: // TODO tidy',
      '  ✓ {"value":2}',
      '',
    ].join('\n'),
  );
});

test('an inner result right under its call needs no name', () => {
  const lines = stderrOf(sequence([programCall, readCall, readResult, programResult])).split('\n');
  assert.deepEqual(lines.slice(1, 3), [
    '  ▸ read_file {"path":"a.ts"}',
    '    ✓ export const a = 1;',
  ]);
});

test('a cancelled program: every inner call ends as an error under it, then the program', () => {
  assert.equal(
    stderrOf(abortedProgramEvents()),
    [
      `▸ run_code ${codeGist}…`,
      '  ▸ read_file {"path":"a.ts"}',
      '  ▸ grep {"pattern":"TODO"}',
      '    ✗ read_file: aborted',
      '    ✗ grep: aborted',
      '  ✗ aborted',
      'interrupted',
      '',
    ].join('\n'),
  );
});
