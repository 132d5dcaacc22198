import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { SessionStore } from '../../src/core/session-store.js';
import { GoalError } from '../../src/goal/contract.js';
import { foldGoal } from '../../src/goal/fold.js';
import { GoalService } from '../../src/goal/goal-service.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { writeGoalSession } from './goal-fixture.js';

let session: Awaited<ReturnType<typeof writeGoalSession>>;
before(async () => {
  session = await writeGoalSession();
});

/** Opens `text` as session `sessionId` the way the command line does (lock and repair), then folds it. */
function openCut(home: string, sessionId: string, text: string) {
  const store = new SessionStore(home);
  mkdirSync(store.directory, { recursive: true });
  writeFileSync(store.pathOf(sessionId), text);
  const log = store.open(sessionId);
  try {
    const service = new GoalService({ log });
    return {
      problem: service.problem,
      activation: service.activation,
      goal: service.goal,
      events: log.events,
    };
  } finally {
    log.close();
  }
}

function replayError(events: readonly SessionEvent[]): GoalError {
  try {
    foldGoal(events);
  } catch (error) {
    assert.ok(error instanceof GoalError, `not a GoalError: ${String(error)}`);
    assert.equal(error.code, 'GOAL_REPLAY');
    return error;
  }
  assert.fail('the fold accepted the log');
}

const edited = (
  events: readonly SessionEvent[],
  seq: number,
  change: (data: Record<string, unknown>) => void,
): SessionEvent[] =>
  events.map((event) => {
    if (event.seq !== seq) return event;
    const data = structuredClone(event.data) as Record<string, unknown>;
    change(data);
    return { ...event, data } as SessionEvent;
  });

const roundMessage = (events: readonly SessionEvent[], round: number) => {
  const found = events.find(
    (event) =>
      event.type === 'user/message' &&
      (event as SessionEvent<'user/message'>).data.source === 'goal' &&
      (event as SessionEvent<'user/message'>).data.round === round,
  );
  assert.ok(found, `no round ${round} in the session`);
  return found;
};

test('the whole goal session folds to a complete goal with four rounds', () => {
  const fold = foldGoal(session.events);
  assert.deepEqual(fold.goal, {
    id: 'goal-1',
    objective: 'make the tests pass',
    phase: 'complete',
    revision: 4,
    roundsStarted: 4,
    maxRounds: 4,
    reason: 'npm test passes: 12 of 12',
  });
  assert.deepEqual(
    fold.history.map((entry) => (entry.kind === 'round' ? `round ${entry.round}` : entry.action)),
    ['create', 'round 1', 'round 2', 'pause', 'resume', 'round 3', 'round 4', 'complete'],
  );
});

test('the goal session cut at every line opens with repair, folds without error and is disarmed', () => {
  const text = readFileSync(session.path, 'utf8');
  const lines = text.split('\n').slice(0, -1);
  assert.ok(lines.length > 40, `a realistic session has many lines, got ${lines.length}`);
  const home = temporaryFolder('loom-goal-cut-');
  let previousRounds = 0;
  for (let kept = 1; kept <= lines.length; kept++) {
    const cut = `${lines.slice(0, kept).join('\n')}\n`;
    const opened = openCut(home, session.sessionId, cut);
    assert.equal(opened.problem, undefined, `cut after line ${kept}: ${opened.problem?.message}`);
    assert.equal(opened.activation, 'disarmed', `cut after line ${kept}`);
    const rounds = opened.goal?.roundsStarted ?? 0;
    assert.ok(rounds >= previousRounds, `cut after line ${kept}: rounds went back`);
    previousRounds = rounds;
  }
  assert.equal(previousRounds, 4);
});

test('the goal session cut in the middle of a line opens with repair, folds and is disarmed', () => {
  const text = readFileSync(session.path, 'utf8');
  const lines = text.split('\n').slice(0, -1);
  const home = temporaryFolder('loom-goal-torn-');
  const torn = [
    0,
    1,
    2,
    Math.floor(lines.length / 3),
    Math.floor(lines.length / 2),
    lines.length - 1,
  ];
  for (const line of torn) {
    const whole = lines
      .slice(0, line)
      .map((kept) => `${kept}\n`)
      .join('');
    const half = (lines[line] as string).slice(
      0,
      Math.max(1, Math.floor((lines[line] as string).length / 2)),
    );
    const opened = openCut(home, session.sessionId, whole + half);
    assert.equal(opened.problem, undefined, `torn line ${line + 1}: ${opened.problem?.message}`);
    assert.equal(opened.activation, 'disarmed', `torn line ${line + 1}`);
  }
});

test('every prefix of the goal session folds without error', () => {
  for (let length = 0; length <= session.events.length; length++) {
    assert.doesNotThrow(
      () => foldGoal(session.events.slice(0, length)),
      `prefix of ${length} events`,
    );
  }
});

test('a goal round with the wrong round number is a replay error naming its seq', () => {
  const round = roundMessage(session.events, 2);
  const events = edited(session.events, round.seq, (data) => {
    data.round = 3;
  });
  const error = replayError(events);
  assert.match(error.message, new RegExp(`session event ${round.seq} \\(user/message\\)`));
  assert.match(error.message, /round 3, but the next round is 2/);
});

test('a goal round while no goal is active is a replay error naming its seq', () => {
  const pause = pauseChange();
  const round3 = roundMessage(session.events, 3);
  // Round 3 moved before the resume: it would run while the goal is paused.
  const before = session.events.filter((event) => event.seq <= pause.seq);
  const stray = { ...round3, seq: pause.seq + 1 } as SessionEvent;
  const error = replayError([...before, stray]);
  assert.match(error.message, new RegExp(`session event ${pause.seq + 1} \\(user/message\\)`));
  assert.match(error.message, /no goal is active/);
});

test('a goal round before any goal exists is a replay error naming its seq', () => {
  const round1 = roundMessage(session.events, 1);
  const error = replayError([round1]);
  assert.match(error.message, new RegExp(`session event ${round1.seq} \\(user/message\\)`));
});

/** The recorded session's `pause` change. */
function pauseChange(): SessionEvent {
  return session.events.find(
    (event) =>
      event.type === 'goal/change' &&
      (event as SessionEvent<'goal/change'>).data.action === 'pause',
  ) as SessionEvent;
}

test('a goal change with a wrong revision is a replay error naming its seq', () => {
  const pause = pauseChange();
  const error = replayError(
    edited(session.events, pause.seq, (data) => {
      data.revision = 5;
    }),
  );
  assert.match(error.message, new RegExp(`session event ${pause.seq} \\(goal/change\\)`));
  assert.match(error.message, /revision 5 after revision 1/);
});

test('a goal change naming another goal is a replay error naming its seq', () => {
  const pause = pauseChange();
  const error = replayError(
    edited(session.events, pause.seq, (data) => {
      data.goalId = 'goal-7';
    }),
  );
  assert.match(error.message, new RegExp(`session event ${pause.seq} \\(goal/change\\)`));
  assert.match(error.message, /goal-7, but the current goal is goal-1/);
});

test('a second create while the goal is active is a replay error naming its seq', () => {
  const create = session.events.find((event) => event.type === 'goal/change') as SessionEvent;
  const again = { ...create, seq: create.seq + 1, data: { ...create.data, goalId: 'goal-2' } };
  const error = replayError([create, again as SessionEvent]);
  assert.match(error.message, new RegExp(`session event ${create.seq + 1} \\(goal/change\\)`));
});

test('a service over a log that cannot be folded reports the replay error and refuses changes', () => {
  const home = temporaryFolder('loom-goal-bad-');
  const round = roundMessage(session.events, 2);
  const lines = readFileSync(session.path, 'utf8').split('\n');
  const broken = lines
    .map((line) =>
      line.includes(`"seq":${round.seq},`) ? line.replace('"round":2', '"round":9') : line,
    )
    .join('\n');
  const store = new SessionStore(home);
  mkdirSync(store.directory, { recursive: true });
  writeFileSync(join(store.directory, `${session.sessionId}.jsonl`), broken);
  const log = store.open(session.sessionId);
  try {
    const service = new GoalService({ log });
    assert.equal(service.problem?.code, 'GOAL_REPLAY');
    assert.match(service.problem?.message ?? '', new RegExp(`session event ${round.seq} `));
    assert.throws(() => service.create({ objective: 'another', by: 'human' }), {
      code: 'GOAL_REPLAY',
    });
    assert.throws(() => service.arm(), { code: 'GOAL_REPLAY' });
    assert.equal(service.activation, 'disarmed');
  } finally {
    log.close();
  }
});
