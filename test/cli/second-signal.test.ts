/**
 * The forced stop that a second signal runs in `loom run` and `loom acp` (`interruptLiveSessions`),
 * in process: through `bin/loom` the graceful stop ends every turn within a few event-loop turns
 * (it abandons jobs and races every tool, hook and model read against the abort), so no signal can
 * be aimed at the moment between the two. Here the moment is held open on purpose: a root turn
 * waiting on a foreground child, a background child and a background command, all hanging.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { AgentContext } from '@agentclientprotocol/sdk';
import { AcpSessions } from '../../src/acp/acp-sessions.js';
import { buildRuntime, type LoomSetup } from '../../src/cli/build-runtime.js';
import { interruptLiveSessions } from '../../src/cli/interrupt-sessions.js';
import type { AgentHandle } from '../../src/core/create-agent.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { SessionLog } from '../../src/core/session-log.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { noneLeft, waitUntil } from '../helpers/process-state.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { writeScriptedModel } from './loom-process.js';

/** The events as they are on disk, unrepaired (a load does not repair). */
function eventsOnDisk(path: string): SessionEvent[] {
  const [, ...lines] = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  return lines.map((line) => JSON.parse(line) as SessionEvent);
}

interface HeldRun {
  setup: LoomSetup;
  root: AgentHandle;
  workspace: string;
  /** The root and both children, taken while all three run. */
  handles: AgentHandle[];
  finished: Promise<unknown>;
}

/**
 * A root whose one step starts a background command, a background child and a foreground child;
 * both children hang on their model, so the root's turn stays open on the foreground call.
 */
async function holdRun(
  open: (
    workspace: string,
    home: string,
    model: string,
  ) => (LoomSetup & { root: AgentHandle }) | Promise<LoomSetup & { root: AgentHandle }>,
): Promise<HeldRun> {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: '^start everything$',
        steps: [
          {
            tools: [
              {
                name: 'bash',
                arguments: { command: 'sleep 1000 # held', run_in_background: true },
              },
              {
                name: 'subagent',
                arguments: {
                  description: 'background helper',
                  prompt: 'hang in the background',
                  run_in_background: true,
                },
              },
              {
                name: 'subagent',
                arguments: { description: 'foreground helper', prompt: 'hang in the foreground' },
              },
            ],
          },
          { reply: 'never reached' },
        ],
      },
      { when: '^hang', hang: true },
    ],
  });
  const { root, ...setup } = await open(workspace, home, `scripted:${model}`);
  const finished = root.agent.prompt('start everything');
  const hangingChildren = () =>
    setup.runtime.liveAgents.filter(
      (handle) =>
        handle !== root && handle.log.events.some((event) => event.type === 'request/header'),
    ).length;
  await waitUntil(() => hangingChildren() === 2, 'both children waiting on their model');
  return { setup, root, workspace, handles: setup.runtime.liveAgents, finished };
}

/** Every session the run wrote, checked on disk: invariants, and nothing left open. */
function assertClosed(run: HeldRun): void {
  const { handles } = run;
  assert.equal(handles.length, 3, 'the root and its two children');
  for (const handle of handles) {
    const events = eventsOnDisk(handle.log.path);
    assert.deepEqual(checkSessionInvariants(events), [], handle.log.path);
    const ends = events.filter((event) => event.type === 'turn/end');
    assert.equal(ends.at(-1)?.type, 'turn/end');
    assert.equal(events.at(-1)?.type, 'turn/end', `${handle.log.path} ends with its turn`);
  }
  const rootEvents = eventsOnDisk(run.root.log.path);
  const lastEnd = rootEvents.at(-1) as SessionEvent<'turn/end'>;
  assert.equal(lastEnd.data.reason, 'interrupted');
  const results = rootEvents.filter((event) => event.type === 'tool/result');
  assert.equal(results.length, 3, 'every tool call of the root is answered');
  const jobs = rootEvents.filter((event) => event.type === 'job/start' || event.type === 'job/end');
  assert.deepEqual(
    jobs.map((event) => event.type),
    ['job/start', 'job/start', 'job/end', 'job/end'],
  );
}

/** Lets what the test held open end, so the test process can exit. */
async function release(run: HeldRun): Promise<void> {
  for (const handle of run.setup.runtime.liveAgents) handle.agent.cancel('the test is over');
  await run.finished;
  run.setup.subagents.services.children.releaseUnder(run.root.log.header.sessionId);
  run.root.close();
  run.setup.jobs.dispose();
}

/** `loom run`'s runtime. */
function runRuntime(workspace: string, home: string, model: string) {
  const setup = buildRuntime({ cwd: workspace, home, model });
  return { ...setup, root: setup.runtime.start() };
}

test('forced stop alone: every turn, tool call, job and child session is closed on disk', async () => {
  const run = await holdRun(runRuntime);
  interruptLiveSessions(run.setup, 'terminated (SIGTERM)');
  try {
    assertClosed(run);
    await noneLeft(run.workspace, /sleep 1000/);
  } finally {
    await release(run);
  }
});

test('a forced stop during the graceful one: the turns still ending add no second end', async () => {
  const run = await holdRun(runRuntime);
  const sessionId = run.root.log.header.sessionId;
  // The first signal (run-command's graceful stop), then the second before its turns have ended.
  run.setup.subagents.services.children.cancelTree(sessionId, 'terminated (SIGTERM)');
  run.setup.jobs.service.abandonAll('terminated (SIGTERM)');
  interruptLiveSessions(run.setup, 'terminated (SIGTERM)');
  // What the process does while stdout drains before it exits: the aborted turns run on.
  await run.finished;
  await waitUntil(
    () => run.setup.runtime.liveAgents.every((handle) => handle.agent.status === 'idle'),
    'every aborted turn to have run its course',
  );
  try {
    assertClosed(run);
    await noneLeft(run.workspace, /sleep 1000/);
  } finally {
    await release(run);
  }
});

/** An ACP client that takes every notification and never answers a request. */
const silentClient = {
  notify: async () => {},
  request: () => new Promise(() => {}),
} as unknown as AgentContext;

test('loom acp: a forced stop during the shutdown closes the turns the shutdown left ending', async () => {
  let sessions: AcpSessions | undefined;
  let acpSetup: LoomSetup | undefined;
  const run = await holdRun(async (workspace, home, model) => {
    sessions = new AcpSessions({ home, model, client: silentClient });
    const session = await sessions.open(workspace);
    acpSetup = session.setup;
    return { ...session.setup, root: session.handle };
  });
  assert.ok(sessions && acpSetup);
  // The first signal (shutdown: cancel and close every session), then the second at once.
  const shutdown = sessions.closeAll('loom acp stopped: terminated (SIGTERM)');
  sessions.abandonAll('terminated (SIGTERM)');
  await shutdown;
  await run.finished;
  await waitUntil(
    () => run.handles.every((handle) => handle.agent.status === 'idle'),
    'every aborted turn to have run its course',
  );
  try {
    assertClosed(run);
    await noneLeft(run.workspace, /sleep 1000/);
  } finally {
    acpSetup.jobs.dispose();
  }
});

test('forced stop during a foreground command: its group ends first, the log ends with its turn', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: '^run a command$',
        steps: [
          { tools: [{ name: 'bash', arguments: { command: 'sleep 1000 # foreground' } }] },
          { reply: 'never reached' },
        ],
      },
    ],
  });
  const { root, ...setup } = runRuntime(workspace, home, `scripted:${model}`);
  const finished = root.agent.prompt('run a command');
  await waitUntil(
    () => root.log.events.some((event) => event.type === 'bash/group-start'),
    'the command group on the record',
  );
  interruptLiveSessions(setup, 'terminated (SIGTERM)');
  try {
    const events = eventsOnDisk(root.log.path);
    assert.deepEqual(checkSessionInvariants(events), []);
    assert.deepEqual(
      events.slice(-4).map((event) => event.type),
      ['bash/group-end', 'tool/result', 'step/end', 'turn/end'],
    );
    assert.equal((events.at(-1) as SessionEvent<'turn/end'>).data.reason, 'interrupted');
    await noneLeft(workspace, /sleep 1000/);
  } finally {
    root.agent.cancel('the test is over');
    await finished;
    root.close();
    setup.jobs.dispose();
  }
});

test('a sealed session log keeps what it had and drops later appends, unobserved', () => {
  const log = SessionLog.create({ directory: temporaryFolder() });
  const observed: string[] = [];
  log.onAppend((event) => observed.push(event.type));
  log.append('turn/start', { turnId: 'turn-1' });
  log.seal();
  const dropped = log.append('turn/end', {
    turnId: 'turn-1',
    reason: 'aborted',
    usage: { input: 0, output: 0 },
    steps: 0,
  });
  assert.equal(dropped.seq, 2);
  assert.deepEqual(observed, ['turn/start']);
  assert.deepEqual(
    log.events.map((event) => event.type),
    ['turn/start'],
  );
  assert.deepEqual(
    eventsOnDisk(log.path).map((event) => event.type),
    ['turn/start'],
  );
  log.close();
  assert.equal(log.closed, true);
});
