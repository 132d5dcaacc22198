import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ScriptedRule } from '../../src/llm/scripted-rules.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import {
  type LoomRun,
  runLoom,
  type ScriptedFolders,
  scriptedFolders,
  startLoom,
} from './loom-process.js';

/** Matches a round prompt's first line; `{{1}}` is the round's number. */
const ROUND = '^\\[goal round (\\d+) of';
const roundOf = (round: number) => `^\\[goal round ${round} of`;

function completeAt(round: number, revision: number): ScriptedRule {
  return callsThenReply(
    roundOf(round),
    [
      {
        name: 'update_goal',
        arguments: {
          goal_id: 'goal-1',
          revision,
          action: 'complete',
          reason: `checked in round ${round}`,
        },
      },
    ],
    `finished in round ${round}`,
  );
}

const worksEachRound: ScriptedRule = { when: ROUND, reply: 'worked on round {{1}}' };
const hangsInRound2: ScriptedRule = { when: roundOf(2), hang: true };
const answersTheHuman = { reply: 'ok: {{prompt}}' };

interface Events {
  type: string;
  data: Record<string, unknown>;
}

function eventsOf(stdout: string): Events[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Events);
}

const roundsIn = (events: Events[]) =>
  events
    .filter((event) => event.type === 'user/message' && event.data.source === 'goal')
    .map((event) => event.data.round);

function sessionIdFrom(stderr: string): string {
  const match = /^session (\S+)$/m.exec(stderr);
  assert.ok(match, `no session line in:\n${stderr}`);
  return match[1] as string;
}

const modelArgs = (folders: ScriptedFolders) => ['--model', `scripted:${folders.model}`];

/** Runs in the workspace, where a session of it may be opened. */
function loom(folders: ScriptedFolders, args: string[]) {
  return runLoom(args, { home: folders.home, cwd: folders.workspace });
}

function runGoal(folders: ScriptedFolders, args: string[]) {
  return loom(folders, ['run', ...modelArgs(folders), '--cwd', folders.workspace, ...args]);
}

/** `loom goal resume --session ID` over the scripted model, with `extra` arguments. */
function resumeGoal(folders: ScriptedFolders, sessionId: string, extra: string[] = []) {
  return loom(folders, ['goal', 'resume', '--session', sessionId, ...modelArgs(folders), ...extra]);
}

/** Standard input stays open: with --goal and no prompt, `loom run` must not wait to read one. */
function startGoal(folders: ScriptedFolders, args: string[]): LoomRun {
  return startLoom(['run', ...modelArgs(folders), '--cwd', folders.workspace, ...args], {
    home: folders.home,
    keepStdinOpen: true,
  });
}

async function goalShown(folders: ScriptedFolders, sessionId: string) {
  const shown = await loom(folders, ['goal', 'show', '--session', sessionId, '--json']);
  assert.equal(shown.code, 0, shown.stderr);
  return JSON.parse(shown.stdout) as {
    sessionId: string;
    goal: { id: string; phase: string; revision: number; roundsStarted: number; reason?: string };
    history: Array<{ kind: string; round?: number; action?: string; by?: string }>;
  };
}

const historyRounds = (shown: Awaited<ReturnType<typeof goalShown>>) =>
  shown.history.filter((entry) => entry.kind === 'round').map((entry) => entry.round);

test('loom run --goal runs three rounds to completion, exits 0, and goal show lists the rounds', async () => {
  const folders = scriptedFolders({
    rules: [completeAt(3, 1), worksEachRound],
    default: answersTheHuman,
  });
  const run = await runGoal(folders, ['--json', '--goal', 'make three things']);
  assert.equal(run.code, 0, run.stderr);
  const events = eventsOf(run.stdout);
  const sessionId = String(
    (JSON.parse(run.stdout.split('\n')[0] as string) as { sessionId: string }).sessionId,
  );
  assert.equal(sessionIdFrom(run.stderr), sessionId);
  assert.deepEqual(roundsIn(events), [1, 2, 3]);
  const changes = events.filter((event) => event.type === 'goal/change').map((event) => event.data);
  assert.deepEqual(
    changes.map((change) => [change.action, change.by, change.phase, change.revision]),
    [
      ['create', 'human', 'active', 1],
      ['complete', 'round', 'complete', 2],
    ],
  );
  assert.match(run.stderr, /goal goal-1 complete after 3 rounds: checked in round 3/);

  const plain = await loom(folders, ['goal', 'show', '--session', sessionId]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^goal goal-1: make three things$/m);
  assert.match(plain.stdout, /^phase complete, revision 2, rounds 3 of 20$/m);
  assert.match(plain.stdout, /^reason: checked in round 3$/m);
  assert.equal(plain.stdout.match(/Z {2}round \d$/gm)?.length, 3, plain.stdout);
  assert.match(plain.stdout, /create by human → active \(revision 1\)/);
  const shown = await goalShown(folders, sessionId);
  assert.deepEqual(historyRounds(shown), [1, 2, 3]);
  assert.equal(shown.goal.phase, 'complete');

  const session = await loom(folders, ['sessions', 'show', sessionId]);
  assert.equal(session.code, 0, session.stderr);
  assert.match(session.stdout, /user\/message +\[goal round 2 of 20\] make three things/);
  assert.match(session.stdout, /goal\/change +goal goal-1 complete by round → complete/);

  // A complete goal: nothing to resume or pause; clearing it leaves its history to show.
  const resumed = await loom(folders, ['goal', 'resume', '--session', sessionId]);
  assert.equal(resumed.code, 1);
  assert.match(resumed.stderr, /goal goal-1 of session \S+ is already complete.*GOAL_PHASE/);
  const paused = await loom(folders, ['goal', 'pause', '--session', sessionId]);
  assert.equal(paused.code, 1);
  assert.match(
    paused.stderr,
    /goal goal-1 is complete; pause needs a goal that is active \(GOAL_PHASE\)/,
  );
  const cleared = await loom(folders, ['goal', 'clear', '--session', sessionId]);
  assert.equal(cleared.code, 0, cleared.stderr);
  assert.match(cleared.stdout, /goal goal-1 cleared/);
  const after = await loom(folders, ['goal', 'show', '--session', sessionId]);
  assert.match(after.stdout, /no goal: the last one was cleared/);
  assert.match(after.stdout, /clear by human → cleared \(revision 3\)/);
});

test('a goal killed in round 2 reopens disarmed: the human is answered, no round starts; goal resume finishes it', async () => {
  const folders = scriptedFolders({
    rules: [completeAt(3, 1), hangsInRound2, worksEachRound],
    default: answersTheHuman,
  });
  const run = startGoal(folders, ['--json', '--goal', 'survive a crash']);
  const line = await run.waitForLine(/"type":"user\/message".*"round":2/);
  const sessionId = String((JSON.parse(line) as { sessionId: string }).sessionId);

  // Reading takes no lock, so it works while the goal runs; changing it does not.
  const live = await goalShown(folders, sessionId);
  assert.equal(live.goal.phase, 'active');
  assert.deepEqual(historyRounds(live), [1, 2]);
  const busy = await loom(folders, ['goal', 'pause', '--session', sessionId]);
  assert.equal(busy.code, 1);
  assert.match(busy.stderr, /SESSION_BUSY/);
  assert.match(busy.stderr, new RegExp(`process ${run.child.pid}\\b`));

  run.child.kill('SIGKILL');
  assert.equal((await run.exited).signal, 'SIGKILL');

  const status = await runGoal(folders, ['--json', '--session', sessionId, 'status?']);
  assert.equal(status.code, 0, status.stderr);
  const statusEvents = eventsOf(status.stdout);
  assert.deepEqual(roundsIn(statusEvents), []);
  assert.ok(
    statusEvents.some(
      (event) => event.type === 'assistant/message' && event.data.text === 'ok: status?',
    ),
    status.stdout,
  );
  const reopened = await goalShown(folders, sessionId);
  assert.deepEqual(historyRounds(reopened), [1, 2]);
  assert.equal(reopened.goal.phase, 'active');

  const resumed = await resumeGoal(folders, sessionId, ['--json']);
  assert.equal(resumed.code, 0, resumed.stderr);
  const resumedEvents = eventsOf(resumed.stdout);
  assert.deepEqual(roundsIn(resumedEvents), [3]);
  // Round 2 was cut off before it reported anything; round 1's report is not repeated as its.
  const round3 = resumedEvents.find((event) => event.data.round === 3);
  assert.match(String(round3?.data.text), /The previous round reported:\n\(nothing\)/);
  assert.match(resumed.stderr, /goal goal-1 complete after 3 rounds/);
  const finished = await goalShown(folders, sessionId);
  assert.deepEqual(historyRounds(finished), [1, 2, 3]);
  assert.equal(finished.goal.phase, 'complete');
  assert.equal(finished.goal.roundsStarted, 3);
});

test('Ctrl-C in a round exits 130 with the goal paused by the human; goal resume continues it', async () => {
  // Paused is revision 2, resumed revision 3: round 3 completes at revision 3.
  const folders = scriptedFolders({
    rules: [completeAt(3, 3), hangsInRound2, worksEachRound],
    default: answersTheHuman,
  });
  const run = startGoal(folders, ['--goal', 'be interruptible']);
  await run.waitForStderr(/^goal round 2 of 20$/);
  const sessionId = sessionIdFrom(run.stderr());
  run.child.kill('SIGINT');
  assert.equal((await run.exited).code, 130, run.stderr());
  assert.match(run.stderr(), /goal goal-1 is paused after 2 rounds \(interrupted by the user\)/);

  const shown = await goalShown(folders, sessionId);
  assert.equal(shown.goal.phase, 'paused');
  assert.equal(shown.goal.reason, 'interrupted by the user');
  assert.deepEqual(shown.history.at(-1), {
    ...shown.history.at(-1),
    kind: 'change',
    action: 'pause',
    by: 'human',
  });

  const resumed = await resumeGoal(folders, sessionId);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /^goal round 3 of 20$/m);
  assert.match(resumed.stdout, /finished in round 3/);
  const finished = await goalShown(folders, sessionId);
  assert.equal(finished.goal.phase, 'complete');
  assert.deepEqual(
    finished.history.filter((entry) => entry.kind === 'change').map((entry) => entry.action),
    ['create', 'pause', 'resume', 'complete'],
  );
});

test('the round cap exits 1 naming GOAL_ROUND_CAP; goal resume --max-rounds raises it', async () => {
  // The resume that raises the cap is revision 2.
  const folders = scriptedFolders({
    rules: [completeAt(3, 2), worksEachRound],
    default: answersTheHuman,
  });
  const run = await runGoal(folders, ['--goal', 'take long', '--max-rounds', '2', 'start here']);
  assert.equal(run.code, 1, run.stderr);
  const sessionId = sessionIdFrom(run.stderr);
  assert.match(run.stdout, /^ok: start here$/m);
  assert.match(run.stderr, /^goal round 1 of 2$/m);
  assert.match(run.stderr, /^goal round 2 of 2$/m);
  assert.match(run.stderr, /GOAL_ROUND_CAP/);
  assert.ok(
    run.stderr.includes(`loom goal resume --session ${sessionId} --max-rounds N`),
    run.stderr,
  );
  const capped = await goalShown(folders, sessionId);
  assert.equal(capped.goal.phase, 'active');
  assert.deepEqual(historyRounds(capped), [1, 2]);

  const another = await runGoal(folders, ['--session', sessionId, '--goal', 'something else']);
  assert.equal(another.code, 1);
  assert.match(another.stderr, /goal goal-1 is active; complete or clear it .*\(GOAL_EXISTS\)/);
  const tooFew = await loom(folders, [
    'goal',
    'resume',
    '--session',
    sessionId,
    '--max-rounds',
    '2',
  ]);
  assert.equal(tooFew.code, 1);
  assert.match(tooFew.stderr, /GOAL_ROUND_CAP/);
  const resumed = await loom(folders, [
    'goal',
    'resume',
    '--session',
    sessionId,
    '--max-rounds',
    '3',
    ...modelArgs(folders),
  ]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stderr, /^goal round 3 of 3$/m);
  assert.deepEqual(historyRounds(await goalShown(folders, sessionId)), [1, 2, 3]);
});

test('plain loom run keeps going when the model creates a goal on the human word, until it settles', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'keep at it',
        [{ name: 'create_goal', arguments: { objective: 'finish the job' } }],
        'goal set',
      ),
      completeAt(2, 1),
      worksEachRound,
    ],
    default: answersTheHuman,
  });
  const run = await runGoal(folders, ['--json', 'keep at it']);
  assert.equal(run.code, 0, run.stderr);
  const events = eventsOf(run.stdout);
  assert.deepEqual(roundsIn(events), [1, 2]);
  assert.match(run.stderr, /goal goal-1 complete after 2 rounds/);
  const sessionId = String((events[0] as unknown as { sessionId: string }).sessionId);
  const shown = await goalShown(folders, sessionId);
  assert.equal(shown.goal.phase, 'complete');
  assert.equal(shown.history[0]?.by, 'model');
});

test('a failing round exits 1; goal commands and --max-rounds fail clearly on bad input, exit 2', async () => {
  const folders = scriptedFolders({
    rules: [{ when: roundOf(2), error: 'upstream 500' }, worksEachRound],
    default: answersTheHuman,
  });
  // Independent runs, started together to keep the test short.
  const [failing, zero, fraction, withoutGoal, emptyGoal, noSession, ...missing] =
    await Promise.all([
      runGoal(folders, ['--goal', 'fail in round two']),
      runGoal(folders, ['--goal', 'x', '--max-rounds', '0']),
      runGoal(folders, ['--goal', 'x', '--max-rounds', '1.5']),
      runGoal(folders, ['--max-rounds', '3', 'hello']),
      runGoal(folders, ['--goal', ' ']),
      loom(folders, ['goal', 'show']),
      loom(folders, ['goal', 'resume', '--session', 'nope']),
      loom(folders, ['goal', 'pause', '--session', 'nope']),
    ]);
  assert.equal(failing.code, 1);
  assert.match(failing.stderr, /^goal round 2 of 20$/m);
  assert.match(failing.stderr, /goal round ended with an error: upstream 500/);
  for (const [run, bad] of [
    [zero, '0'],
    [fraction, '1\\.5'],
  ] as const) {
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      new RegExp(`--max-rounds must be a whole number from 1 to \\d+ \\(got ${bad}\\)`),
    );
  }
  assert.equal(withoutGoal.code, 2);
  assert.match(withoutGoal.stderr, /--max-rounds needs --goal/);
  assert.equal(emptyGoal.code, 2);
  assert.match(emptyGoal.stderr, /--goal needs a non-empty objective/);
  assert.equal(noSession.code, 2);
  assert.match(noSession.stderr, /--session <id>/);
  for (const run of missing) {
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /no session nope in .*SESSION_NOT_FOUND/);
  }

  const plain = await runGoal(folders, ['--json', 'hello']);
  assert.equal(plain.code, 0, plain.stderr);
  const sessionId = String(
    (eventsOf(plain.stdout)[0] as unknown as { sessionId: string }).sessionId,
  );
  const commands = ['show', 'clear', 'resume'];
  const answers = await Promise.all(
    commands.map((command) => loom(folders, ['goal', command, '--session', sessionId])),
  );
  for (const [index, none] of answers.entries()) {
    const command = commands[index];
    assert.equal(none.code, 1, command);
    assert.match(
      none.stderr,
      new RegExp(`session ${sessionId} has no goal.*\\(GOAL_NOT_FOUND\\)`),
      command,
    );
  }
});

test('a goal the rounds report blocked three times in a row exits 1 naming the block', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        ROUND,
        [
          {
            name: 'update_goal',
            arguments: { goal_id: 'goal-1', revision: 1, action: 'blocked', reason: 'no network' },
          },
        ],
        'still blocked',
      ),
    ],
    default: answersTheHuman,
  });
  const run = await runGoal(folders, ['--goal', 'fetch the data']);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /^goal round 3 of 20$/m);
  assert.doesNotMatch(run.stderr, /^goal round 4/m);
  assert.match(run.stderr, /error: goal goal-1 is blocked after 3 rounds: no network/);
});
