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
import { SessionPicker } from '../../src/tui/components/session-picker.js';
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
    assert.match(first, /› 20261130-120000-cccccc {2}2026-11-30 10:00 {2}3 turns {2}newest/);
    assert.match(first, / {2}20261130-110000-bbbbbb .*1 turn {2}middle/);
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
    assert.match(lastFrame() ?? '', /ctx 12k\/128k \(10%\)/);
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
