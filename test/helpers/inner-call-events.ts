/**
 * Session events of one Code Mode `run_code` call as the log holds them, for the tests of the
 * progress views: the program's inner calls (`parentCallId`) start while it runs, are answered in
 * call order, and all before the program's own result, also when the program is cancelled.
 */
import type { SessionEvent } from '../../src/core/session-events.js';

export const TURN = 't1';
export const PROGRAM = 'call_1';
export const CODE =
  "const [a, b] = await Promise.all([tools.read_file({ path: 'a.ts' }), tools.grep({ pattern: 'TODO' })]);";

type Data<Type extends SessionEvent['type']> = SessionEvent<Type>['data'];
export type EventItem = readonly [SessionEvent['type'], unknown];

/** Numbers events in order from `firstSeq`. */
export function sequence(items: readonly EventItem[], firstSeq = 1): SessionEvent[] {
  return items.map(
    ([type, data], index) => ({ type, seq: firstSeq + index, time: 0, data }) as SessionEvent,
  );
}

const base = { turnId: TURN, step: 1 };

function toolCall(data: Data<'tool/call'>): EventItem {
  return ['tool/call', data];
}

function toolResult(data: Data<'tool/result'>): EventItem {
  return ['tool/result', data];
}

export const programCall = toolCall({
  ...base,
  callId: PROGRAM,
  name: 'run_code',
  arguments: { code: CODE },
});
export const readCall = toolCall({
  ...base,
  callId: `${PROGRAM}.1`,
  name: 'read_file',
  arguments: { path: 'a.ts' },
  parentCallId: PROGRAM,
});
export const grepCall = toolCall({
  ...base,
  callId: `${PROGRAM}.2`,
  name: 'grep',
  arguments: { pattern: 'TODO' },
  parentCallId: PROGRAM,
});

function innerResult(call: EventItem, content: string): EventItem {
  const { callId, name } = call[1] as Data<'tool/call'>;
  return toolResult({ ...base, callId, name, content, isError: false, parentCallId: PROGRAM });
}

export const readResult = innerResult(readCall, 'export const a = 1;');
export const grepResult = innerResult(grepCall, 'a.ts:3: // TODO tidy');
export const programResult = toolResult({
  ...base,
  callId: PROGRAM,
  name: 'run_code',
  content: '{"value":2}',
  isError: false,
});

/** The result as a cancel ends it. */
export function aborted(item: EventItem): EventItem {
  return toolResult({
    ...(item[1] as Data<'tool/result'>),
    content: 'aborted',
    isError: true,
    errorCode: 'ABORTED',
  });
}

/** A program that reads and greps concurrently and answers. */
export function programEvents(): SessionEvent[] {
  return sequence([
    ['turn/start', { turnId: TURN }],
    ['step/start', base],
    programCall,
    readCall,
    grepCall,
    readResult,
    grepResult,
    programResult,
    ['step/end', { ...base, finishReason: 'tool-calls', usage: { input: 0, output: 0 } }],
  ]);
}

/** The same program cancelled while both inner calls run. */
export function abortedProgramEvents(): SessionEvent[] {
  return sequence([
    ['turn/start', { turnId: TURN }],
    ['step/start', base],
    programCall,
    readCall,
    grepCall,
    aborted(readResult),
    aborted(grepResult),
    aborted(programResult),
    ['step/end', { ...base, finishReason: 'tool-calls', usage: { input: 0, output: 0 } }],
    ['turn/end', { turnId: TURN, reason: 'aborted', usage: { input: 0, output: 0 }, steps: 1 }],
  ]);
}
