/**
 * Item 6 of issue 9 through real `bin/loom` processes: SIGTERM and SIGHUP stop `workflow run`,
 * `run` and `acp` like SIGINT (exit 143 / 129); a second signal (or a closed stdout) ends the
 * process at once while still writing the agents' ends, `workflow/end`, the result, the turn's end.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import * as acp from '@agentclientprotocol/sdk';
import { loadSessionFile } from '../../src/core/session-load.js';
import { stuckAfterGlob } from '../helpers/scripted-turns.js';
import { sessionPaths } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { loomAcpStream } from './loom-acp.js';
import {
  LOOM_BIN,
  scriptedFolders,
  startLoom,
  startScriptedRun,
  writeScriptedModel,
} from './loom-process.js';
import {
  agentPairs,
  cancelledRun,
  type EventLine,
  quickAndStuckModel,
  readEvents,
  startScriptedWorkflow,
  writeFile,
} from './workflow-fixture.js';

/** Every agent-start has its agent-end, and `workflow/end` is the last event. */
function assertComplete(events: EventLine[], stopReason: string): void {
  for (const [seq, { start, end }] of agentPairs(events)) {
    assert.ok(end, `agent ${seq} (${start.label}) has an agent-end`);
  }
  const last = events.at(-1);
  assert.equal(last?.type, 'workflow/end');
  assert.equal(last?.stopReason, stopReason);
  assert.equal(events.filter((event) => event.type === 'workflow/end').length, 1);
}

const stuckScript = `export const meta = { name: 'stuck', description: 'Children that never answer' };
const done = await agent('quick', { label: 'quick' });
return await parallel(['a', 'b'].map((item) => () => agent(\`stuck on \${item}\`, { label: \`stuck \${item}\` })));
`;

for (const [signal, exitCode] of [
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  test(`workflow run: ${signal} cancels like SIGINT, exits ${exitCode}, events and --json complete`, async () => {
    const { loom, eventsPath } = startScriptedWorkflow(
      temporaryFolder(),
      { name: 'stuck.js', script: stuckScript, model: quickAndStuckModel },
      ['--max-concurrent', '4', '--json'],
    );
    await loom.waitForStderr(/^agent #\d+ started: stuck /, 2);
    loom.child.kill(signal);
    const { result } = await cancelledRun(loom, exitCode);
    assert.equal(result.code, 'CANCELLED');
    assert.equal(result.agentsStarted, 3);
    const events = readEvents(eventsPath);
    assertComplete(events, 'cancelled');
    assert.equal(agentPairs(events).size, 3);
  });
}

test('workflow run: a second signal while the script spins still writes the agent ends, workflow/end and --json', async () => {
  const home = temporaryFolder();
  writeFile(home, 'config.yaml', 'workflow:\n  cancelGraceMs: 600000\n');
  const { loom, eventsPath } = startScriptedWorkflow(
    home,
    {
      name: 'spin.js',
      script: `export const meta = { name: 'spin', description: 'Leaves an agent running and spins' };
await agent('warm up', { label: 'warm up' });
agent('stuck forever', { label: 'stuck' });
for (;;) {}
`,
      model: { rules: [{ when: '^stuck', hang: true }], default: { reply: 'ok' } },
    },
    ['--json'],
  );
  await loom.waitForStderr(/^agent #2 started: stuck/);
  // The script never yields and the grace period is long: only the second signal can end it.
  loom.child.kill('SIGTERM');
  await loom.waitForStderr(/cancelling… \(SIGTERM again to exit at once\)/);
  loom.child.kill('SIGINT');
  const { result } = await cancelledRun(loom, 130);
  assert.equal(result.agentsStarted, 2);
  const events = readEvents(eventsPath);
  assertComplete(events, 'cancelled');
  const pairs = agentPairs(events);
  assert.equal(pairs.size, 2);
  assert.equal(pairs.get(1)?.end?.outcome, 'completed');
  assert.equal(pairs.get(2)?.end?.outcome, 'cancelled');
});

for (const [signal, exitCode] of [
  ['SIGTERM', 143],
  ['SIGHUP', 129],
] as const) {
  test(`loom run: ${signal} on a hanging turn exits ${exitCode} with the turn logged as aborted`, async () => {
    const folders = scriptedFolders({ rules: [{ when: 'stuck', hang: true }] });
    const { home } = folders;
    const run = startScriptedRun(folders, 'stuck', { json: true });
    await run.waitForLine(/"type":"request\/header"/);
    run.child.kill(signal);
    const { code } = await run.exited;
    assert.equal(code, exitCode, run.stderr());
    const [file] = sessionPaths(home);
    assert.ok(file);
    const end = loadSessionFile(file).events.at(-1);
    assert.equal(end?.type, 'turn/end');
    assert.equal((end?.data as { reason?: string } | undefined)?.reason, 'aborted');
    const printed = JSON.parse(run.stdout().trim().split('\n').at(-1) ?? '{}');
    assert.equal(printed.type, 'turn/end');
  });
}

test('loom run --json | head -1 mid-turn: the forced stop closes the turn as interrupted, quietly, 141', async () => {
  const home = temporaryFolder();
  // Its own workspace: one that is LOOM_HOME itself gets no checkpoints, and says so on stderr.
  const workspace = temporaryFolder();
  const fifo = join(home, 'gate');
  execFileSync('mkfifo', [fifo]);
  // Step 1 prints far more than a pipe holds; step 2 blocks on the FIFO until the test opens it,
  // so the turn is still open when the closed stdout is noticed.
  const model = writeScriptedModel(home, {
    rules: [
      {
        when: 'fill and wait',
        steps: [
          {
            tools: [
              { name: 'write_file', arguments: { path: 'big.txt', content: 'b'.repeat(400_000) } },
            ],
          },
          { tools: [{ name: 'bash', arguments: { command: `cat '${fifo}'` } }] },
          { reply: 'never reached' },
        ],
      },
    ],
  });
  const errorPath = join(home, 'stderr.txt');
  const loom = [
    process.execPath,
    LOOM_BIN,
    'run',
    '--json',
    '--model',
    `scripted:${model}`,
    '--cwd',
    workspace,
    'fill and wait',
  ]
    .map((word) => `'${word}'`)
    .join(' ');
  const shell = spawn(
    'bash',
    ['-c', `${loom} 2>'${errorPath}' | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"`],
    {
      env: { ...process.env, LOOM_HOME: home },
    },
  );
  let out = '';
  shell.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  await new Promise((resolve) => shell.on('close', resolve));
  releaseFifo(fifo);
  assert.equal(out.trim(), '141');
  assert.equal(readFileSync(errorPath, 'utf8'), '');
  const [file] = sessionPaths(home);
  assert.ok(file);
  const { events } = loadSessionFile(file);
  const end = events.at(-1);
  assert.equal(end?.type, 'turn/end');
  assert.equal((end?.data as { reason?: string } | undefined)?.reason, 'interrupted');
});

/** Lets a `cat` still blocked on the FIFO finish: opens it for writing without waiting, closes it. */
function releaseFifo(fifo: string): void {
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader left: nothing is blocked on it.
  }
}

test('loom acp: SIGTERM shuts down, ends the open turn as aborted and exits 143', async () => {
  const { home, workspace, model } = scriptedFolders(stuckAfterGlob);
  const loom = startLoom(['acp', '--model', `scripted:${model}`], { home, keepStdinOpen: true });
  let sawToolUpdate: () => void = () => {};
  const toolUpdate = new Promise<void>((resolve) => {
    sawToolUpdate = resolve;
  });
  const stream = loomAcpStream(loom);
  const client = acp
    .client({ name: 'loom-test' })
    .onNotification('session/update', ({ params }) => {
      const { update } = params;
      if (update.sessionUpdate === 'tool_call_update' && update.status === 'completed')
        sawToolUpdate();
    });
  const connected = client.connectWith(stream, async (agent) => {
    await agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const prompt = agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'stuck' }],
    });
    await toolUpdate;
    loom.child.kill('SIGTERM');
    await prompt.catch(() => undefined);
    return sessionId;
  });
  const settled = connected.catch(() => undefined);
  const { code } = await loom.exited;
  assert.equal(code, 143, loom.stderr());
  const sessionId = await settled;
  const [file] = sessionPaths(home);
  assert.ok(file);
  if (sessionId) assert.ok(file.includes(sessionId));
  const end = loadSessionFile(file).events.at(-1);
  assert.equal(end?.type, 'turn/end');
  assert.equal((end?.data as { reason?: string } | undefined)?.reason, 'aborted');
});
