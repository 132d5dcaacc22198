/**
 * Component tests of the session's parts of the terminal: the `/resume` picker (arrows select,
 * Enter picks, keys typed together included) and the footer (model, workspace, context, tokens,
 * cost, counts, the goal's round, the mode).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import type { SessionSummary } from '../../src/core/session-store.js';
import { Footer, shortWorkspace } from '../../src/tui/components/footer.js';
import { localTime, SessionPicker } from '../../src/tui/components/session-picker.js';
import type { FooterState } from '../../src/tui/contract.js';

async function frameMatching(
  lastFrame: () => string | undefined,
  pattern: RegExp,
): Promise<string> {
  for (;;) {
    const frame = lastFrame() ?? '';
    if (pattern.test(frame)) return frame;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function summary(id: string, firstPrompt: string, turns: number): SessionSummary {
  return {
    id,
    created: '2026-11-30T10:00:00.000Z',
    lastUsed: '2026-11-30T10:00:05.000Z',
    firstPrompt,
    turns,
    parentSession: null,
    delegationDepth: 0,
  };
}

const SESSIONS = [
  summary('20261130-120000-cccccc', 'newest', 3),
  summary('20261130-110000-bbbbbb', 'middle', 1),
  summary('20261130-100000-aaaaaa', 'oldest', 2),
];

test('the resume picker selects with the arrows and picks with Enter', async () => {
  const picked: string[] = [];
  const { lastFrame, stdin, unmount } = render(
    <SessionPicker sessions={SESSIONS} width={100} onPick={(id) => picked.push(id)} />,
  );
  try {
    const first = await frameMatching(lastFrame, /enter reopens/);
    const when = localTime('2026-11-30T10:00:05.000Z');
    assert.ok(first.includes(`› 20261130-120000-cccccc  ${when}      3  newest`), first);
    assert.ok(first.includes(`  20261130-110000-bbbbbb  ${when}      1  middle`), first);
    stdin.write('\x1b[B');
    await frameMatching(lastFrame, /› 20261130-110000-bbbbbb/);
    stdin.write('\r');
    assert.deepEqual(picked, ['20261130-110000-bbbbbb']);
    // Down twice and Enter in one write: Enter reads the newest selection; it stops at the end.
    stdin.write('\x1b[B\x1b[B\x1b[B');
    await frameMatching(lastFrame, /› 20261130-100000-aaaaaa/);
    stdin.write('\x1b[A\r');
    assert.deepEqual(picked, ['20261130-110000-bbbbbb', '20261130-110000-bbbbbb']);
  } finally {
    unmount();
  }
});

test('the resume picker lines its columns up under a header, whatever the turns and prompts', async () => {
  const sessions = [
    summary('20261130-120000-cccccc', 'newest', 3),
    summary('20261130-110000-bbbbbb', 'middle', 12),
    { ...summary('20261130-100000-aaaaaa', '', 0), error: 'not a session file' },
  ];
  const { lastFrame, unmount } = render(
    <SessionPicker sessions={sessions} width={120} onPick={() => {}} />,
  );
  try {
    const frame = await frameMatching(lastFrame, /enter reopens/);
    const rows = frame.split('\n').filter((line) => /session|2026113/.test(line));
    const header = rows.find((line) => line.includes('first prompt')) ?? '';
    assert.match(header, /session {2,}last used {2,}turns {2}first prompt/);
    const promptColumn = header.indexOf('first prompt');
    const turnsEnd = header.indexOf('turns') + 'turns'.length;
    const expected: Array<[string, string]> = [
      ['newest', '3'],
      ['middle', '12'],
      ['(unreadable: not a session file)', ''],
    ];
    for (const [text, turns] of expected) {
      const row = rows.find((line) => line.includes(text)) ?? '';
      assert.equal(
        row.indexOf(text),
        promptColumn,
        `the prompt of ${text} starts under its header`,
      );
      if (turns) assert.equal(row.slice(turnsEnd - turns.length, turnsEnd), turns);
    }
  } finally {
    unmount();
  }
});

test('typing filters the resume picker by id or first prompt; Backspace widens it; Enter picks among the matches', async () => {
  const picked: string[] = [];
  const { lastFrame, stdin, unmount } = render(
    <SessionPicker sessions={SESSIONS} width={100} onPick={(id) => picked.push(id)} />,
  );
  try {
    await frameMatching(lastFrame, /enter reopens/);
    stdin.write('MID');
    const filtered = await frameMatching(lastFrame, /filter: MID \(1 of 3\)/);
    assert.doesNotMatch(filtered, /newest|oldest/);
    assert.match(filtered, /› 20261130-110000-bbbbbb/);
    stdin.write('\x7f\x7f\x7f100000');
    await frameMatching(lastFrame, /filter: 100000 \(1 of 3\)/);
    stdin.write('\r');
    assert.deepEqual(picked, ['20261130-100000-aaaaaa']);
  } finally {
    unmount();
  }
});

const FOOTER: FooterState = {
  model: 'openai:gpt-4o',
  workspace: '/home/ada/project',
  contextTokens: 12_300,
  tokens: { input: 45_000, output: 1200 },
  costUsd: 0.0105,
  runningChildren: 2,
  runningJobs: 1,
  runningWorkflows: 0,
  goal: { round: 2, maxRounds: 20, phase: 'active', armed: true },
  mode: 'plan',
  busy: false,
  queued: 0,
};

test('the footer shows model, workspace, context, tokens, cost, counts, goal round and mode', () => {
  const { lastFrame, rerender, unmount } = render(<Footer footer={FOOTER} />);
  try {
    const frame = lastFrame() ?? '';
    assert.match(frame, /openai:gpt-4o · \/home\/ada\/project · ctx 12k · 45k↑ 1\.2k↓ · \$0\.0105/);
    assert.match(frame, /^⏸ plan mode · 2 agents · 1 job · goal running round 2\/20 · shift\+tab/m);
    assert.doesNotMatch(frame, /workflows/);
    rerender(
      <Footer
        footer={{
          ...FOOTER,
          contextWindow: 128_000,
          goal: { round: 2, maxRounds: 20, phase: 'active', armed: false },
        }}
      />,
    );
    assert.match(lastFrame() ?? '', /ctx 10% of 128k/);
    assert.match(lastFrame() ?? '', /goal stopped round 2\/20/);
    const { costUsd: _costUsd, goal: _goal, ...unpriced } = FOOTER;
    rerender(<Footer footer={{ ...unpriced, mode: 'default' }} />);
    assert.doesNotMatch(lastFrame() ?? '', /\$|goal/);
    assert.match(lastFrame() ?? '', /▶ default mode/);
  } finally {
    unmount();
  }
});

test('the workspace under the home folder starts with ~', () => {
  assert.equal(shortWorkspace('/home/ada/project', '/home/ada'), '~/project');
  assert.equal(shortWorkspace('/home/ada', '/home/ada'), '~');
  assert.equal(shortWorkspace('/home/adam/project', '/home/ada'), '/home/adam/project');
});

test('while a request has the keyboard the footer points at it instead of offering to steer', () => {
  const busy = { ...FOOTER, busy: true };
  const { lastFrame, rerender, unmount } = render(<Footer footer={busy} />);
  try {
    assert.match(lastFrame() ?? '', /enter steers/);
    rerender(<Footer footer={busy} requestOpen />);
    assert.match(lastFrame() ?? '', /answer the request above · esc interrupts/);
    assert.doesNotMatch(lastFrame() ?? '', /enter steers/);
  } finally {
    unmount();
  }
});
