/**
 * Approvals, questions and plan review in the interactive `bin/loom`, as a person answers them:
 * a pseudo-terminal, the scripted model, an `ask` permission rule in LOOM_HOME/config.yaml, keys
 * typed once the widget is on the screen, assertions on the rendered screen.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SessionStore } from '../../src/core/session-store.js';
import { scriptedFolders } from '../cli/loom-process.js';
import { bashCall, callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { KEYS, openLoom, quit, send } from './pty-screen.js';

function askBashFolders() {
  const folders = scriptedFolders({
    rules: [callsThenReply('run it', [bashCall('echo hel""lo')], 'result: {{lastToolResult}}')],
  });
  writeFileSync(
    join(folders.home, 'config.yaml'),
    'permissions:\n  - tool: bash\n    match: { command: "echo *" }\n    action: ask\n',
  );
  return folders;
}

/**
 * A pattern for `waitFor` that needs all of `parts`, in this order, anywhere on the screen. Ink
 * writes the static region and the live one separately, so a test waits for the last part it
 * needs (the footer, drawn last) rather than asserting on a screen caught between two writes.
 */
function inOrder(...parts: Array<string | RegExp>): RegExp {
  const sources = parts.map((part) =>
    typeof part === 'string' ? part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : part.source,
  );
  return new RegExp(sources.join('[\\s\\S]*'));
}

const FOOTER_DEFAULT = /▶ default mode/;
const FOOTER_PLAN = /⏸ plan mode/;

test('an ask rule: "yes, always" runs the command, adds a session rule, and is not asked again', async (t) => {
  const screen = await openLoom(t, askBashFolders());
  await send(screen, 'run it');
  await screen.waitFor(
    inOrder(
      'Allow bash?',
      '$ echo hel""lo',
      'asks for approval',
      '1. Yes',
      '2. Yes, and allow bash `echo hel""lo` for the rest of this session',
      '3. No, and tell the model why',
      FOOTER_DEFAULT,
    ),
  );
  screen.type('a');
  const first = await screen.waitFor(
    inOrder('session rule added: bash `echo hel""lo`', '✓ bash', /result: .*hello/, FOOTER_DEFAULT),
  );
  assert.doesNotMatch(first, /Allow bash\?/, 'the approval is gone once answered');
  await send(screen, 'run it again');
  // Asked again, the turn would wait for an answer and never reply.
  const second = await screen.waitFor(
    inOrder('> run it again', '✓ bash', /result: .*hello/, FOOTER_DEFAULT),
  );
  assert.doesNotMatch(second, /Allow bash\?/);
  await quit(screen);
});

test('an ask rule refused with a reason: the model reads the reason', async (t) => {
  // Wide enough for the model's whole answer on one line.
  const screen = await openLoom(t, askBashFolders(), 180);
  await send(screen, 'run it');
  await screen.waitFor(inOrder('Allow bash?', '3. No', FOOTER_DEFAULT));
  screen.type('n');
  await screen.waitFor(inOrder('Why not?', FOOTER_DEFAULT));
  screen.type('print it with printf');
  await screen.waitFor(inOrder('Why not? print it with printf', FOOTER_DEFAULT));
  screen.type(KEYS.enter);
  await screen.waitFor(
    inOrder('⊘ bash', /result: .*The user said: print it with printf/, FOOTER_DEFAULT),
  );
  await quit(screen);
});

test("a subagent's ask reaches the person, named as the subagent's, and its answer returns", async (t) => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^delegate$',
        [subagentCall('echo for me', 'child work')],
        'parent got: {{lastToolResult}}',
      ),
      callsThenReply(
        '^child work$',
        [bashCall('echo from-child')],
        'child ran: {{lastToolResult}}',
      ),
    ],
  });
  writeFileSync(
    join(folders.home, 'config.yaml'),
    'permissions:\n  - tool: bash\n    match: { command: "echo *" }\n    action: ask\n',
  );
  const screen = await openLoom(t, folders, 160);
  await send(screen, 'delegate');
  await screen.waitFor(inOrder(/Allow bash \(asked by subagent \S+\)\?/, '1. Yes', FOOTER_DEFAULT));
  screen.type('y');
  await screen.waitFor(inOrder(/parent got: .*child ran: .*from-child/, FOOTER_DEFAULT));
  await quit(screen);
});

test('a question answered by choosing options: the model reads the answers', async (t) => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'pick',
        [
          {
            name: 'ask_user_question',
            arguments: {
              questions: [
                {
                  question: 'Which colour?',
                  header: 'Colour',
                  options: [{ label: 'red' }, { label: 'blue', description: 'calm' }],
                },
                {
                  question: 'Which sizes?',
                  options: [{ label: 'S' }, { label: 'M' }, { label: 'L' }],
                  multiSelect: true,
                },
              ],
            },
          },
        ],
        'chosen: {{lastToolResult}}',
      ),
    ],
  });
  const screen = await openLoom(t, folders, 160);
  await send(screen, 'pick');
  await screen.waitFor(
    inOrder('Colour: Which colour?', '› 1. red', '2. blue — calm', '3. Other', FOOTER_DEFAULT),
  );
  screen.type(KEYS.down);
  await screen.waitFor(inOrder('› 2. blue', FOOTER_DEFAULT));
  screen.type(KEYS.enter);
  await screen.waitFor(
    inOrder('✓ Which colour? → blue', '(2/2) Which sizes?', '[ ] S', FOOTER_DEFAULT),
  );
  screen.type('1');
  await screen.waitFor(inOrder('[x] S', FOOTER_DEFAULT));
  screen.type('3');
  await screen.waitFor(inOrder('[x] L', FOOTER_DEFAULT));
  screen.type(KEYS.enter);
  const answered = await screen.waitFor(inOrder('chosen: The user answered:', FOOTER_DEFAULT));
  assert.match(answered, /"Which colour\?" → "blue"/);
  assert.match(answered, /"Which sizes\?" → "S", "L"/);
  assert.doesNotMatch(answered, /\[x\] S/, 'the form is gone once answered');
  await quit(screen);
  assert.deepEqual(loggedAnswers(folders.home), [
    { question: 'Which colour?', labels: ['blue'] },
    { question: 'Which sizes?', labels: ['S', 'L'] },
  ]);
});

/** The answers of the one `question/answer` event of the workspace's one session. */
function loggedAnswers(home: string): unknown {
  const store = new SessionStore(home);
  const [session] = store.list();
  assert.ok(session, 'a session was stored');
  const events = readFileSync(store.pathOf(session.id), 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { type: string; data: { answers?: unknown } });
  const answers = events.filter((event) => event.type === 'question/answer');
  assert.equal(answers.length, 1);
  return answers[0]?.data.answers;
}

test('Shift+Tab cycles into plan mode; the plan review sends feedback, then approves', async (t) => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        'plan it',
        [
          { name: 'exit_plan_mode', arguments: { plan: '# Steps\n\n1. edit a.ts' } },
          { name: 'exit_plan_mode', arguments: { plan: 'Revised after: {{lastToolResult}}' } },
        ],
        'after review: {{lastToolResult}}',
      ),
    ],
  });
  const screen = await openLoom(t, folders, 160);
  await screen.waitFor(FOOTER_DEFAULT);
  screen.type(KEYS.shiftTab);
  await screen.waitFor(FOOTER_PLAN);
  screen.type(KEYS.shiftTab);
  await screen.waitFor(FOOTER_DEFAULT);
  screen.type(KEYS.shiftTab);
  await screen.waitFor(FOOTER_PLAN);
  await send(screen, 'plan it');
  await screen.waitFor(
    inOrder('Plan ready for review', 'edit a.ts', '1. Approve', '2. Keep planning', FOOTER_PLAN),
  );
  screen.type('k');
  await screen.waitFor(inOrder('What should change?', FOOTER_PLAN));
  screen.type('add tests first');
  await screen.waitFor(inOrder('What should change? add tests first', FOOTER_PLAN));
  screen.type(KEYS.enter);
  // The model's second plan quotes the tool result that carried the feedback.
  await screen.waitFor(
    inOrder(
      'Plan ready for review',
      'Revised after:',
      /Their feedback:[\s│]+add tests first/,
      FOOTER_PLAN,
    ),
  );
  screen.type('1');
  const approved = await screen.waitFor(
    inOrder(/after review: The user approved the plan/, FOOTER_DEFAULT),
  );
  assert.doesNotMatch(approved, /Plan ready for review/, 'the review is gone once answered');
  await quit(screen);
});
