/**
 * The `acp` subagent provider through bin/loom in real processes: each child is a `loom acp`
 * process over the scripted model. A workflow of 8 agents completes with 8 answers; cancelled by
 * SIGINT, no child process remains and every agent start has its end; a child's permission
 * request is answered by the parent's rules; a request the provider cannot serve starts nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { LoadedSession } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { isGroupAlive, noneLeft, processesIn, waitUntil } from '../helpers/process-state.js';
import { bashCall, callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { ndjsonLines, sessionPaths, sessions, toolResults } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runScripted, scriptedFolders, startScriptedRun } from './loom-process.js';
import {
  agentPairs,
  cancelledRun,
  parseResult,
  readEvents,
  runWorkflow,
  startScriptedWorkflow,
  writeJson,
} from './workflow-fixture.js';

/** A child's process, or the watchdog of its group: their command lines name these. */
const CHILD_PROCESS = /loom-acp-agent|bin\/loom acp/;

const fakeAgent = fileURLToPath(
  new URL('../subagent/fixtures/fake-acp-agent.mjs', import.meta.url),
);

const LETTERS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

function eightAgents(name: string, verb: string): string {
  return `export const meta = { name: '${name}', description: 'Eight agents' };
return await parallel(${JSON.stringify(LETTERS)}.map((letter) => () => agent(\`${verb} \${letter}\`, { label: letter })));
`;
}

const model = {
  rules: [
    { when: '^audit (.*)', reply: 'no issues in {{1}}' },
    { when: '^stuck', hang: true },
  ],
};

/** The local logs the parent kept of its ACP children (they begin with an acp descriptor). */
function acpChildren(all: LoadedSession[]): LoadedSession[] {
  return all.filter((session) =>
    session.events.some(
      (event) =>
        event.type === 'subagent/descriptor' &&
        (event.data as { provider?: string }).provider === 'acp',
    ),
  );
}

function remoteSessionOf(session: LoadedSession): string | undefined {
  const event = session.events.find((candidate) => candidate.type === 'acp/session');
  return (event?.data as { remoteSessionId?: string } | undefined)?.remoteSessionId;
}

test('workflow run --provider acp: 8 agents, each a loom acp process, give 8 answers', async () => {
  const home = temporaryFolder();
  const { loom, eventsPath } = startScriptedWorkflow(
    home,
    { name: 'audit.js', script: eightAgents('audit', 'audit'), model },
    ['--provider', 'acp', '--max-concurrent', '4', '--json'],
  );
  const run = await loom.exited;
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'completed');
  assert.deepEqual(
    result.value,
    LETTERS.map((letter) => `no issues in ${letter}`),
  );
  assert.equal(result.agentsStarted, 8);
  for (const [seq, { end }] of agentPairs(readEvents(eventsPath))) {
    assert.equal(end?.outcome, 'completed', `agent ${seq}`);
  }

  const all = sessions(home);
  const children = acpChildren(all);
  assert.equal(children.length, 8);
  const ids = new Set(all.map((session) => session.header.sessionId));
  for (const child of children) {
    assert.equal(child.header.delegationDepth, 1);
    const remote = remoteSessionOf(child);
    assert.ok(remote && ids.has(remote), `the remote session ${remote} is stored in the same home`);
    const answer = child.events.find((event) => event.type === 'assistant/message');
    assert.match(
      (answer?.data as { text?: string } | undefined)?.text ?? '',
      /^no issues in [a-h]$/,
    );
  }
  // The 8 children, and the 8 sessions of the loom acp processes that served them.
  assert.equal(all.length, 16);
  for (const remote of all.filter((session) => !children.includes(session))) {
    // A workflow child's contract reached the remote Loom's system prompt (`_meta` of session/new).
    const blob = remote.events.find((event) => event.type === 'prompt/blob');
    assert.match(
      (blob?.data as { system?: string } | undefined)?.system ?? '',
      /one step of a workflow script/,
    );
  }
  for (const session of all) assert.deepEqual(checkSessionInvariants(session.events), []);
  await noneLeft(home, CHILD_PROCESS);
});

test('workflow run --provider acp: SIGINT cancels every child, and no child process remains', async () => {
  const home = temporaryFolder();
  const { loom, eventsPath } = startScriptedWorkflow(
    home,
    { name: 'stuck.js', script: eightAgents('stuck', 'stuck'), model },
    ['--provider', 'acp', '--max-concurrent', '8', '--json'],
  );
  // Every remote turn is running: each loom acp session (not the parent's local logs, which
  // start with their descriptor) has its prompt.
  const remoteTurnsStarted = () =>
    sessionPaths(home).filter((path) => {
      const text = readFileSync(path, 'utf8');
      return !text.includes('"subagent/descriptor"') && text.includes('"stuck ');
    }).length;
  await waitUntil(() => remoteTurnsStarted() === 8, `8 remote turns to start\n${loom.stderr()}`);
  assert.ok(processesIn(home, CHILD_PROCESS).length >= 8, 'the children run as processes');
  loom.child.kill('SIGINT');
  const { result } = await cancelledRun(loom, 130);
  assert.equal(result.agentsStarted, 8);
  const failures = result.failures as Array<{ outcome: string }>;
  assert.deepEqual(
    failures.map((failure) => failure.outcome),
    LETTERS.map(() => 'cancelled'),
  );
  await noneLeft(home, CHILD_PROCESS);

  const pairs = agentPairs(readEvents(eventsPath));
  assert.equal(pairs.size, 8);
  for (const [seq, { end }] of pairs) assert.equal(end?.outcome, 'cancelled', `agent ${seq}`);
  const all = sessions(home);
  assert.equal(acpChildren(all).length, 8);
  assert.equal(all.length, 16);
  for (const session of all) {
    assert.deepEqual(checkSessionInvariants(session.events), []);
    const end = session.events.findLast((event) => event.type === 'turn/end');
    // Cancelled through the protocol: each remote turn ended itself, as did each local log.
    const reason = (end?.data as { reason?: string } | undefined)?.reason;
    assert.equal(reason, 'aborted', session.header.sessionId);
  }
});

test('subagent with an acp provider: SIGKILL of loom still ends an agent that outlives its client (the watchdog)', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply('^go$', [subagentCall('linger', 'hang', { provider: 'linger' })], 'never'),
    ],
  });
  const pids = join(folders.home, 'agent-pids');
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `subagents:\n  providers:\n    linger:\n      type: acp\n      command: ${JSON.stringify(process.execPath)}\n      args: [${JSON.stringify(fakeAgent)}]\n      env: { FAKE_AGENT_LINGER: '1', FAKE_AGENT_PIDS: ${JSON.stringify(pids)} }\n`,
  );
  const loom = startScriptedRun(folders, 'go');
  // The file is made before its line is written: wait for the whole line.
  await waitUntil(
    () => existsSync(pids) && readFileSync(pids, 'utf8').endsWith('\n'),
    `the agent to start\n${loom.stderr()}`,
  );
  const pid = Number(readFileSync(pids, 'utf8').trim());
  assert.equal(isGroupAlive(pid), true);
  loom.child.kill('SIGKILL');
  await loom.exited;
  await waitUntil(() => !isGroupAlive(pid), `the agent's group ${pid} to end`);
});

test('subagent: output_schema through a configured acp command fails with UNSUPPORTED_CAPABILITY and starts no process', async () => {
  const schema = { type: 'object', properties: { ok: { type: 'boolean' } } };
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^shape it$',
        [[subagentCall('configured', 'audit y', { provider: 'marked', output_schema: schema })]],
        'done',
      ),
    ],
  });
  const marker = join(folders.workspace, 'started');
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `subagents:\n  providers:\n    marked:\n      type: acp\n      command: /bin/sh\n      args: ['-c', 'touch ${marker}']\n`,
  );
  const run = await runScripted(folders, 'shape it', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const lines = ndjsonLines(run.stdout);
  const results = toolResults(lines, 'subagent');
  assert.equal(results.length, 1);
  for (const result of results) {
    assert.equal(result.isError, true);
    assert.equal(result.errorCode, 'UNSUPPORTED_CAPABILITY');
    assert.match(result.content, /does not support outputSchema/);
  }
  assert.equal(existsSync(marker), false, 'the configured agent never started');
  assert.equal(sessions(folders.home).length, 1, 'no child session was made');
});

test("subagent with provider acp: the child's bash asks, the parent's rules ask, and headless the call is refused", async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^delegate$',
        [subagentCall('list files', 'list the files', { provider: 'acp' })],
        'child said: {{lastToolResult}}',
      ),
      callsThenReply('^list the files$', [bashCall('ls')], 'bash said: {{lastToolResult}}'),
    ],
  });
  writeFileSync(
    join(folders.home, 'config.yaml'),
    'permissions:\n  - tool: bash\n    action: ask\n    reason: commands need a person\n',
  );
  const run = await runScripted(folders, 'delegate');
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /child said: bash said: bash was not approved/);

  const [child] = acpChildren(sessions(folders.home));
  assert.ok(child);
  const [result] = toolResults(child.events, 'bash');
  assert.equal(result?.isError, true);
  assert.deepEqual(
    child.events
      .filter((event) => event.type === 'acp/tool-status')
      .map((event) => (event.data as { status: string }).status),
    ['pending', 'failed'],
  );
  await noneLeft(folders.workspace, CHILD_PROCESS);
});

test('workflow run: an unknown --provider or workflow.provider cannot start, naming it', async () => {
  const home = temporaryFolder();
  const script = join(home, 'one.js');
  writeFileSync(
    script,
    "export const meta = { name: 'one', description: 'One agent' };\nreturn await agent('audit a');\n",
  );
  const modelFile = writeJson(home, 'model.json', model);
  const flag = await runWorkflow(
    ['run', script, '--model', `scripted:${modelFile}`, '--provider', 'nowhere'],
    { home },
  );
  assert.equal(flag.code, 2, flag.stderr);
  assert.match(flag.stderr, /no subagent provider named nowhere/);
  writeFileSync(join(home, 'config.yaml'), 'workflow:\n  provider: elsewhere\n');
  const config = await runWorkflow(['run', script, '--model', `scripted:${modelFile}`], { home });
  assert.equal(config.code, 2, config.stderr);
  assert.match(config.stderr, /workflow\.provider/);
  assert.match(config.stderr, /no subagent provider named elsewhere/);
});

test('config: subagents.providers and subagents.provider are checked, naming the field', async () => {
  const folders = scriptedFolders({ default: { reply: 'ok' } });
  writeFileSync(
    join(folders.home, 'config.yaml'),
    'subagents:\n  provider: claude\n  providers:\n    fork:\n      type: acp\n',
  );
  const run = await runScripted(folders, 'hello');
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /subagents\.providers\.fork: fork is an in-process provider/);
  assert.match(run.stderr, /subagents\.provider: no subagent provider named claude/);
});
