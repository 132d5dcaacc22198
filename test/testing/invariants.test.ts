import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import {
  assertSessionInvariants,
  checkPairs,
  checkSessionInvariants,
} from '../../src/testing/invariants.js';

type Item = [type: string, data: Record<string, unknown>];

function stream(...items: Item[]): SessionEvent[] {
  return items.map(
    ([type, data], index) => ({ type, seq: index + 1, time: 0, data }) as SessionEvent,
  );
}

const usage = { input: 0, output: 0 };
const turnStart = (turnId: string): Item => ['turn/start', { turnId }];
const turnEnd = (turnId: string): Item => [
  'turn/end',
  { turnId, reason: 'completed', usage, steps: 1 },
];
const stepStart = (turnId: string, step: number): Item => ['step/start', { turnId, step }];
const stepEnd = (turnId: string, step: number): Item => [
  'step/end',
  { turnId, step, finishReason: 'stop', usage },
];
const call = (turnId: string, step: number, callId: string): Item => [
  'tool/call',
  { turnId, step, callId, name: 'bash', arguments: {} },
];
const result = (turnId: string, step: number, callId: string): Item => [
  'tool/result',
  { turnId, step, callId, name: 'bash', content: 'ok', isError: false },
];

function soundTurn(turnId: string): Item[] {
  return [
    turnStart(turnId),
    ['user/message', { turnId, text: 'go', delivery: 'followup' }],
    stepStart(turnId, 1),
    call(turnId, 1, 'c1'),
    call(turnId, 1, 'c2'),
    result(turnId, 1, 'c1'),
    result(turnId, 1, 'c2'),
    stepEnd(turnId, 1),
    turnEnd(turnId),
  ];
}

function violationsOf(...items: Item[]): string[] {
  return checkSessionInvariants(stream(...items));
}

describe('checkSessionInvariants', () => {
  test('accepts a sound stream, including plugin events', () => {
    assert.deepEqual(
      violationsOf(
        ...soundTurn('t1'),
        ['workflow/log', { message: 'between turns' }],
        ...soundTurn('t2'),
      ),
      [],
    );
    assert.deepEqual(checkSessionInvariants([]), []);
  });

  test("a request header's prompt must be logged before it", () => {
    const blob: Item = ['prompt/blob', { hash: 'h1', system: 'S', tools: [] }];
    const header = (prompt: string): Item => [
      'request/header',
      { turnId: 't1', step: 1, model: 'm', prompt },
    ];
    const inline: Item = [
      'request/header',
      { turnId: 't1', step: 1, model: 'm', system: 'S', tools: [] },
    ];
    const steps = (...middle: Item[]) => [
      turnStart('t1'),
      stepStart('t1', 1),
      ...middle,
      stepEnd('t1', 1),
      turnEnd('t1'),
    ];
    assert.deepEqual(violationsOf(...steps(blob, header('h1'))), []);
    const stored: Item = ['prompt/stored', { hash: 'h1' }];
    assert.deepEqual(violationsOf(...steps(stored, header('h1'))), [], 'or the store holds it');
    assert.deepEqual(
      violationsOf(...steps(inline)),
      [],
      'headers of older sessions hold it inline',
    );
    assert.deepEqual(violationsOf(...steps(header('h1'), blob)), [
      'request/header (seq 3) names prompt h1 but no prompt/blob or prompt/stored before it holds it',
    ]);
    assert.deepEqual(violationsOf(...steps(blob, header('h2'))), [
      'request/header (seq 4) names prompt h2 but no prompt/blob or prompt/stored before it holds it',
    ]);
  });

  test('seq must strictly increase', () => {
    const events = stream(turnStart('t1'), turnEnd('t1'));
    (events[1] as SessionEvent).seq = 1;
    assert.deepEqual(checkSessionInvariants(events), [
      'seq 1 (turn/end) does not increase after seq 1',
    ]);
  });

  test('a turn needs exactly one end', () => {
    assert.deepEqual(violationsOf(turnStart('t1')), ['turn/start t1 (seq 1) has no turn/end']);
    assert.deepEqual(violationsOf(turnStart('t1'), turnEnd('t1'), turnEnd('t1')), [
      'turn/end t1 (seq 3) is a second turn/end',
    ]);
    assert.deepEqual(violationsOf(turnEnd('t1')), [
      'turn/end t1 (seq 1) has no turn/start before it',
    ]);
  });

  test('turns do not overlap', () => {
    assert.deepEqual(violationsOf(turnStart('t1'), turnStart('t2'), turnEnd('t1'), turnEnd('t2')), [
      'turn t2 starts (seq 2) while turn t1 is open',
    ]);
  });

  test('a step ends within its turn', () => {
    assert.deepEqual(violationsOf(turnStart('t1'), stepStart('t1', 1), turnEnd('t1')), [
      'step/start t1/1 (seq 2) has no step/end',
    ]);
    assert.deepEqual(
      violationsOf(turnStart('t1'), stepStart('t1', 1), turnEnd('t1'), stepEnd('t1', 1)),
      ['step/end (seq 4) comes after the end of its turn t1'],
    );
  });

  test('every tool call has exactly one result in the same turn', () => {
    const violations = violationsOf(
      turnStart('t1'),
      stepStart('t1', 1),
      call('t1', 1, 'c1'),
      call('t1', 1, 'c2'),
      result('t1', 1, 'c1'),
      result('t1', 1, 'c1'),
      stepEnd('t1', 1),
      turnEnd('t1'),
    );
    assert.deepEqual(violations, [
      'tool/result t1/c1 (seq 6) is a second tool/result',
      'tool/call t1/c2 (seq 4) has no tool/result',
      'tool results of step t1/1 come in order c1, c1 but the calls were c1',
    ]);
  });

  test('tool results follow the order of the calls within a step', () => {
    const violations = violationsOf(
      turnStart('t1'),
      stepStart('t1', 1),
      call('t1', 1, 'c1'),
      call('t1', 1, 'c2'),
      result('t1', 1, 'c2'),
      result('t1', 1, 'c1'),
      stepEnd('t1', 1),
      turnEnd('t1'),
    );
    assert.deepEqual(violations, [
      'tool results of step t1/1 come in order c2, c1 but the calls were c1, c2',
    ]);
  });

  test('inner calls pair, answer in call order before their enclosing call, also when aborted', () => {
    const inner = (type: 'tool/call' | 'tool/result', callId: string, more = {}): Item => [
      type,
      {
        ...(type === 'tool/call' ? call : result)('t1', 1, callId)[1],
        name: 'read_file',
        parentCallId: 'c1',
        ...more,
      },
    ];
    const aborted = { isError: true, errorCode: 'ABORTED', content: 'aborted' };
    const program = (...middle: Item[]) => [
      turnStart('t1'),
      stepStart('t1', 1),
      ['tool/call', { ...call('t1', 1, 'c1')[1], name: 'run_code' }] as Item,
      ...middle,
      stepEnd('t1', 1),
      turnEnd('t1'),
    ];
    const parentResult: Item = ['tool/result', { ...result('t1', 1, 'c1')[1], name: 'run_code' }];
    assert.deepEqual(
      violationsOf(
        ...program(
          inner('tool/call', 'c1.1'),
          inner('tool/call', 'c1.2'),
          inner('tool/result', 'c1.1'),
          inner('tool/result', 'c1.2'),
          parentResult,
        ),
      ),
      [],
    );
    assert.deepEqual(
      violationsOf(
        ...program(
          inner('tool/call', 'c1.1'),
          inner('tool/call', 'c1.2'),
          inner('tool/result', 'c1.1', aborted),
          inner('tool/result', 'c1.2', aborted),
          ['tool/result', { ...parentResult[1], ...aborted }],
        ),
      ),
      [],
      'a cancelled program',
    );
    assert.deepEqual(
      violationsOf(
        ...program(
          inner('tool/call', 'c1.1'),
          inner('tool/call', 'c1.2'),
          inner('tool/result', 'c1.2'),
          parentResult,
          inner('tool/result', 'c1.1'),
        ),
      ),
      [
        'tool results of call c1 in step t1/1 come in order c1.2, c1.1 but the calls were c1.1, c1.2',
        'tool/result t1/c1 (seq 7) comes before the result of its inner call t1/c1.1 (seq 4)',
      ],
    );
    assert.deepEqual(
      violationsOf(
        ...program(parentResult, inner('tool/call', 'c1.1'), inner('tool/result', 'c1.1')),
      ),
      ['tool/call t1/c1.1 (seq 5) is inside call c1, which is not open'],
    );
    assert.deepEqual(
      violationsOf(
        ...program(
          inner('tool/call', 'c1.1'),
          inner('tool/result', 'c1.1', { parentCallId: undefined }),
          parentResult,
        ),
      ),
      ['tool/result t1/c1.1 (seq 5) names parent none but its call named c1'],
    );
  });

  test('nothing of a turn comes after its end or before its start', () => {
    assert.deepEqual(
      violationsOf(
        ['user/message', { turnId: 't1', text: 'early', delivery: 'followup' }],
        turnStart('t1'),
        turnEnd('t1'),
        ['assistant/chunk', { turnId: 't1', step: 1, kind: 'text', text: 'late' }],
      ),
      [
        'user/message (seq 1) comes before the start of its turn t1',
        'assistant/chunk (seq 4) comes after the end of its turn t1',
        'assistant/chunk (seq 4) comes before the start of its step t1/1',
      ],
    );
  });
});

describe('checkPairs', () => {
  test('pairs any start and end by key, for later layers', () => {
    const events = stream(
      ['workflow/agent-start', { runId: 'r', seq: 1 }],
      ['workflow/agent-start', { runId: 'r', seq: 2 }],
      ['workflow/agent-end', { runId: 'r', seq: 1, outcome: 'completed' }],
    );
    const violations = checkPairs(events, {
      start: 'workflow/agent-start',
      end: 'workflow/agent-end',
      key: (event) => {
        const data = event.data as unknown as { runId: string; seq: number };
        return `${data.runId}#${data.seq}`;
      },
    });
    assert.deepEqual(violations, ['workflow/agent-start r#2 (seq 2) has no workflow/agent-end']);
  });
});

describe('assertSessionInvariants', () => {
  test('throws an error listing every violation, and is quiet otherwise', () => {
    assert.doesNotThrow(() => assertSessionInvariants(stream(...soundTurn('t1'))));
    assert.throws(
      () => assertSessionInvariants(stream(turnStart('t1'), stepStart('t1', 1))),
      (error: unknown) =>
        error instanceof Error &&
        error.message.includes('- turn/start t1 (seq 1) has no turn/end') &&
        error.message.includes('- step/start t1/1 (seq 2) has no step/end'),
    );
  });
});
