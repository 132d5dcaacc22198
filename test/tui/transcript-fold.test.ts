/**
 * The terminal's transcript fold with a `run_code` program: its inner calls are children of
 * the program's live item, each with its own status, while the program stays running; the
 * program is finished (with them) only by its own result, also when it is cancelled.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { ToolLineState, TranscriptItem } from '../../src/tui/contract.js';
import { TranscriptFold } from '../../src/tui/transcript-fold.js';
import {
  abortedProgramEvents,
  PROGRAM,
  programEvents,
  sequence,
  TURN,
} from '../helpers/inner-call-events.js';

/** `name status` of a call and, indented, of its inner calls. */
function outline(tool: ToolLineState, depth = 0): string[] {
  return [
    `${'  '.repeat(depth)}${tool.name} ${tool.status}`,
    ...(tool.children ?? []).flatMap((child) => outline(child, depth + 1)),
  ];
}

function tools(items: readonly TranscriptItem[]): string[] {
  return items.flatMap((item) => (item.kind === 'tool' ? outline(item.tool) : []));
}

/** A function that applies the events not applied yet, up to and including the one of `seq`. */
function feeder(events: readonly SessionEvent[], fold: TranscriptFold) {
  let next = 0;
  return (seq: number) => {
    for (; next < events.length && (events[next] as SessionEvent).seq <= seq; next++)
      fold.apply(events[next] as SessionEvent);
  };
}

test('inner calls run under their program, which stays running until its own result', () => {
  const fold = new TranscriptFold();
  const foldUpTo = feeder(programEvents(), fold);
  foldUpTo(5);
  assert.deepEqual(tools(fold.live), ['run_code running', '  read_file running', '  grep running']);
  assert.deepEqual(tools(fold.finished), [], 'nothing of the program is finished yet');
  foldUpTo(6);
  assert.deepEqual(tools(fold.live), ['run_code running', '  read_file done', '  grep running']);
  const read = fold.live[0]?.kind === 'tool' ? fold.live[0].tool.children?.[0] : undefined;
  assert.equal(read?.result, 'export const a = 1;');
  foldUpTo(7);
  assert.deepEqual(tools(fold.live), ['run_code running', '  read_file done', '  grep done']);
  foldUpTo(8);
  assert.deepEqual(tools(fold.live), []);
  assert.deepEqual(tools(fold.finished), ['run_code done', '  read_file done', '  grep done']);
  assert.deepEqual(
    fold.finished.map((item) => item.id),
    [`t-${PROGRAM}`],
  );
});

test('a cancelled program ends each inner call cancelled, then itself', () => {
  const fold = new TranscriptFold();
  for (const event of abortedProgramEvents()) fold.apply(event);
  assert.deepEqual(tools(fold.finished), [
    'run_code cancelled',
    '  read_file cancelled',
    '  grep cancelled',
  ]);
  const last = fold.finished.at(-1);
  assert.equal(last?.kind === 'notice' && last.text, 'interrupted');
});

test('a turn that ends mid-program keeps the program with its inner calls as they were', () => {
  const events = programEvents().slice(0, 6);
  const fold = new TranscriptFold();
  for (const event of events) fold.apply(event);
  fold.apply(
    sequence(
      [
        [
          'turn/end',
          { turnId: TURN, reason: 'interrupted', usage: { input: 0, output: 0 }, steps: 1 },
        ],
      ],
      7,
    )[0] as SessionEvent,
  );
  assert.deepEqual(tools(fold.finished), [
    'run_code running',
    '  read_file done',
    '  grep running',
  ]);
  assert.deepEqual(fold.live, []);
});

test('an inner call whose program is not shown is drawn as a call of its own', () => {
  const fold = new TranscriptFold();
  for (const event of programEvents().slice(3, 7)) fold.apply(event);
  assert.deepEqual(tools(fold.finished), ['read_file done', 'grep done']);
});
