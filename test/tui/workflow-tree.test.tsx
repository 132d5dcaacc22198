/**
 * The `/workflows` tree as ink draws it: runs folded from `workflow/*` events by WorkflowRuns,
 * agents under their phases with status, tokens and time, selection with the arrow keys, and an
 * agent's transcript opened with Enter and closed through the Esc slot.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from 'ink-testing-library';
import type { AgentRuntime } from '../../src/core/runtime.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { EscapeSlot } from '../../src/tui/components/view-keys.js';
import { WorkflowTree } from '../../src/tui/components/workflow-tree.js';
import { WorkflowsView } from '../../src/tui/components/workflows-view.js';
import { WorkflowRuns } from '../../src/tui/workflow-runs.js';
import type { WorkflowEventRecord } from '../../src/workflow/contract.js';

const KEYS = { up: '\x1b[A', down: '\x1b[B', enter: '\r' };

/** Resolves once the last frame matches, checking after each turn of the event loop. */
async function frameMatching(
  lastFrame: () => string | undefined,
  pattern: RegExp,
): Promise<string> {
  for (let turn = 0; turn < 10_000; turn++) {
    const frame = lastFrame() ?? '';
    if (pattern.test(frame)) return frame;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`no frame matched ${pattern}; the last one:\n${lastFrame()}`);
}

const T0 = Date.now();

function startedRun(runs: WorkflowRuns): void {
  const records: WorkflowEventRecord[] = [
    {
      type: 'workflow/start',
      runId: 'run-1',
      time: T0,
      name: 'reviewer',
      description: 'reviews files',
      phases: ['read', 'judge'],
    },
    { type: 'workflow/phase', runId: 'run-1', time: T0, title: 'read' },
  ];
  for (const record of records) runs.apply(record);
  for (const [seq, label] of [
    [1, 'read a.ts'],
    [2, 'read b.ts'],
    [3, 'read c.ts'],
  ] as const) {
    runs.noteChildStart({
      runId: `child-${seq}`,
      provider: 'spawn',
      parentSession: 'root',
      description: label,
      depth: 1,
    });
    runs.apply({
      type: 'workflow/agent-start',
      runId: 'run-1',
      time: T0 + seq * 100,
      seq,
      label,
      phase: 'read',
    });
  }
}

test("the tree shows each phase with its agents running, done and failed, with tokens and time; the run adds running agents' tokens", () => {
  const runs = new WorkflowRuns();
  startedRun(runs);
  runs.apply({
    type: 'workflow/agent-end',
    runId: 'run-1',
    time: T0 + 2100,
    seq: 1,
    label: 'read a.ts',
    phase: 'read',
    outcome: 'completed',
    usage: { input: 1200, output: 300 },
  });
  runs.apply({
    type: 'workflow/agent-end',
    runId: 'run-1',
    time: T0 + 700,
    seq: 2,
    label: 'read b.ts',
    phase: 'read',
    outcome: 'failed',
    usage: { input: 0, output: 0 },
    reason: 'upstream 500',
  });
  assert.equal(runs.running, 1);
  assert.equal(runs.get('run-1')?.agents.get(3)?.sessionId, 'child-3');
  const { lastFrame, unmount } = render(
    <WorkflowTree
      runs={runs.list}
      now={T0 + 5300}
      width={100}
      runningTokens={(agent) => (agent.sessionId === 'child-3' ? 420 : undefined)}
    />,
  );
  const frame = lastFrame() ?? '';
  assert.match(
    frame,
    /reviewer running · 3 agents: 1 running · 1 done · 1 failed · 1\.9k tokens · 5\.3s/,
  );
  assert.match(frame, /▸ read \(1 running · 1 done · 1 failed\)/);
  assert.match(frame, /· judge/);
  assert.match(frame, /✓ #1 read a\.ts +done · 1\.5k tokens · 2\.0s/);
  assert.match(frame, /✗ #2 read b\.ts +failed · 500ms — upstream 500/);
  assert.match(frame, /◌ #3 read c\.ts +running · 420 tokens · 5\.0s/);
  unmount();
});

/** The started run's three agents complete and the script enters its `judge` phase. */
function readPhaseDoneThenJudge(runs: WorkflowRuns): void {
  startedRun(runs);
  for (const seq of [1, 2, 3]) {
    runs.apply({
      type: 'workflow/agent-end',
      runId: 'run-1',
      time: T0 + 1000,
      seq,
      label: `read ${'abc'[seq - 1]}.ts`,
      phase: 'read',
      outcome: 'completed',
      usage: { input: 10, output: 5 },
    });
  }
  runs.apply({ type: 'workflow/phase', runId: 'run-1', time: T0 + 1000, title: 'judge' });
}

test('the tree ends with the run: completed, its time frozen at the end', () => {
  const runs = new WorkflowRuns();
  readPhaseDoneThenJudge(runs);
  runs.apply({
    type: 'workflow/end',
    runId: 'run-1',
    time: T0 + 1500,
    stopReason: 'completed',
    agentsStarted: 3,
  });
  assert.equal(runs.running, 0);
  const { lastFrame, unmount } = render(
    <WorkflowTree runs={runs.list} now={T0 + 90_000} width={100} />,
  );
  const frame = lastFrame() ?? '';
  assert.match(
    frame,
    /reviewer completed · 3 agents: 0 running · 3 done · 0 failed · 45 tokens · 1\.5s/,
  );
  assert.match(frame, /✓ read \(3 done\)/);
  unmount();
});

test('a finished run marks its last phase done, not in progress; a run that failed marks where it stopped', () => {
  for (const stopReason of ['completed', 'error'] as const) {
    const runs = new WorkflowRuns();
    readPhaseDoneThenJudge(runs);
    const { lastFrame, unmount } = render(
      <WorkflowTree runs={runs.list} now={T0 + 1200} width={100} />,
    );
    assert.match(lastFrame() ?? '', /▸ judge/, 'the phase is in progress while the run runs');
    runs.apply({
      type: 'workflow/end',
      runId: 'run-1',
      time: T0 + 1500,
      stopReason,
      agentsStarted: 3,
    });
    unmount();
    const ended = render(<WorkflowTree runs={runs.list} now={T0 + 90_000} width={100} />);
    const frame = ended.lastFrame() ?? '';
    assert.doesNotMatch(frame, /▸/, `no phase in progress after the run ${stopReason}`);
    assert.match(frame, stopReason === 'completed' ? /✓ judge/ : /✗ judge/);
    assert.match(frame, /✓ read \(3 done\)/);
    ended.unmount();
  }
});

test('hundreds of agents draw only the rows around the selection', () => {
  const runs = new WorkflowRuns();
  runs.apply({
    type: 'workflow/start',
    runId: 'big',
    time: T0,
    name: 'fan',
    description: 'many',
    phases: [],
  });
  for (let seq = 1; seq <= 300; seq++) {
    runs.apply({
      type: 'workflow/agent-start',
      runId: 'big',
      time: T0,
      seq,
      label: `item ${seq}`,
      phase: 'map',
    });
  }
  const { lastFrame, unmount } = render(
    <WorkflowTree runs={runs.list} now={T0} selected={{ runId: 'big', seq: 150 }} maxRows={10} />,
  );
  const frame = lastFrame() ?? '';
  assert.match(frame, /› ◌ #150 item 150/);
  assert.doesNotMatch(frame, /#1 item 1 /);
  assert.match(frame, /↑ \d+ more rows/);
  assert.match(frame, /↓ \d+ more rows/);
  assert.ok(frame.split('\n').length < 20, frame);
  unmount();
});

test('arrows select an agent, Enter opens its transcript from its session, Esc goes back to the tree', async () => {
  const runs = new WorkflowRuns();
  startedRun(runs);
  const childEvents = [
    { type: 'user/message', seq: 1, time: T0, data: { text: 'read c.ts please' } },
    {
      type: 'assistant/message',
      seq: 2,
      time: T0,
      data: { turnId: 't1', step: 1, text: 'c.ts looks fine', usage: { input: 1, output: 1 } },
    },
  ] as unknown as SessionEvent[];
  const runtime = {
    find(sessionId: string) {
      const events = sessionId === 'child-3' ? childEvents : [];
      const header = { created: new Date(T0).toISOString() };
      return { log: { header, events, onAppend: () => () => {} } };
    },
  } as unknown as AgentRuntime;
  const escapeSlot: EscapeSlot = { current: undefined };
  const { lastFrame, stdin, unmount } = render(
    <WorkflowsView runs={runs.list} runtime={runtime} width={100} escapeSlot={escapeSlot} />,
  );
  try {
    await frameMatching(lastFrame, /#3 read c\.ts/);
    stdin.write(KEYS.down);
    await frameMatching(lastFrame, /› ◌ #1 read a\.ts/);
    stdin.write(KEYS.down);
    stdin.write(KEYS.down);
    await frameMatching(lastFrame, /› ◌ #3 read c\.ts/);
    assert.equal(escapeSlot.current?.(), false, 'the tree leaves Esc to the app');
    stdin.write(KEYS.enter);
    const transcript = await frameMatching(lastFrame, /c\.ts looks fine/);
    assert.match(transcript, /#3 read c\.ts · session child-3/);
    assert.match(transcript, /read c\.ts please/);
    assert.equal(escapeSlot.current?.(), true, 'Esc closes the transcript first');
    await frameMatching(lastFrame, /› ◌ #3 read c\.ts/);
  } finally {
    unmount();
  }
});

test('an agent gets the session of the child started just before it, and only if its label matches', () => {
  const runs = new WorkflowRuns();
  const start = (seq: number, label: string) =>
    runs.apply({ type: 'workflow/agent-start', runId: 'r', time: T0, seq, label, phase: '' });
  const child = (id: string, description: string) =>
    runs.noteChildStart({
      runId: id,
      provider: 'spawn',
      parentSession: 'p',
      description,
      depth: 1,
    });
  child('session-a', 'alpha');
  start(1, 'alpha');
  child('session-x', 'something else');
  start(2, 'beta');
  start(3, 'gamma');
  const agents = runs.get('r')?.agents;
  assert.equal(agents?.get(1)?.sessionId, 'session-a');
  assert.equal(agents?.get(2)?.sessionId, undefined);
  assert.equal(agents?.get(3)?.sessionId, undefined, 'a child start is used once');
});
