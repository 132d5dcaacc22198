/**
 * ACP children that are Loom take what in-process children take, through bin/loom in real
 * processes: the README's `workflow run review.js --provider acp` gives the value the in-process
 * run gives (its `list files` agent answers through its schema, and no child sees the `workflow`
 * tool), a `subagent` call with `output_schema` to the built-in `acp` gets the structured value,
 * and a foreign ACP agent is still refused naming outputSchema, before it starts.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { LoadedSession } from '../../src/core/session-load.js';
import { callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { ndjsonLines, sessions, toolResults } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, runScripted, scriptedFolders } from './loom-process.js';
import { parseResult } from './workflow-fixture.js';

const ROOT = resolve('.');

const fakeAgent = fileURLToPath(
  new URL('../subagent/fixtures/fake-acp-agent.mjs', import.meta.url),
);

/** The README's command that runs the review workflow's agents as `loom acp` children. */
function readmeAcpCommand(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const line = /^loom workflow run review\.js --provider acp .*$/m.exec(readme)?.[0];
  assert.ok(line, 'the README shows workflow run review.js --provider acp');
  return line.split(/\s+/).slice(1);
}

/** A folder holding the review workflow and its scripted model, as the README's command expects. */
function reviewFolder(): string {
  const folder = temporaryFolder();
  for (const name of ['review.js', 'review.model.json'])
    copyFileSync(join(ROOT, 'examples/workflows', name), join(folder, name));
  return folder;
}

async function runIn(folder: string, args: string[]) {
  const home = temporaryFolder();
  const run = await runLoom([...args, '--json'], {
    home,
    cwd: folder,
    env: { DEEPSEEK_API_KEY: '', LOOM_MODEL: '' },
  });
  return { ...run, home };
}

/** The sessions `loom acp` served: those the parent's logs of its children name as remote. */
function remoteSessions(all: LoadedSession[]): LoadedSession[] {
  const remote = new Set(
    all.flatMap((session) =>
      session.events
        .filter((event) => event.type === 'acp/session')
        .map((event) => (event.data as { remoteSessionId: string }).remoteSessionId),
    ),
  );
  return all.filter((session) => remote.has(session.header.sessionId));
}

function toolNamesOf(session: LoadedSession): string[] {
  const blob = session.events.find((event) => event.type === 'prompt/blob');
  const tools = (blob?.data as { tools?: Array<{ name: string }> } | undefined)?.tools ?? [];
  return tools.map((tool) => tool.name);
}

test("the README's workflow run review.js --provider acp gives the in-process run's value: a Loom ACP child answers through its schema", async () => {
  const args = readmeAcpCommand();
  const folder = reviewFolder();
  const overAcp = await runIn(folder, args);
  const inProcess = await runIn(
    folder,
    args.filter((word, index) => word !== '--provider' && args[index - 1] !== '--provider'),
  );
  const acpResult = parseResult(overAcp);
  const inProcessResult = parseResult(inProcess);
  assert.doesNotMatch(overAcp.stderr, /does not support/);
  assert.equal(overAcp.code, inProcess.code, overAcp.stderr);
  assert.deepEqual(acpResult.value, inProcessResult.value);
  // `list files` delivered its six files through its schema: the audits ran on them.
  assert.equal((acpResult.value as { listed: number }).listed, 6);
  const agents = acpResult.agents as Array<{ label: string; outcome: string }>;
  assert.equal(agents.find((agent) => agent.label === 'list files')?.outcome, 'completed');

  const remote = remoteSessions(sessions(overAcp.home));
  assert.equal(remote.length, agents.length, 'one loom acp session per agent');
  for (const session of remote) {
    // The workflow's tool filter reached each child: none may run a workflow of its own.
    const tools = toolNamesOf(session);
    assert.ok(tools.includes('read_file'), tools.join(', '));
    assert.equal(tools.includes('workflow'), false, tools.join(', '));
  }
  const listing = remote.filter((session) => toolNamesOf(session).includes('structured_output'));
  assert.equal(listing.length, 1, 'only the list files child was given a schema');
});

test('subagent with output_schema: the built-in acp (Loom) returns the structured value; a foreign ACP agent is refused naming outputSchema and never starts', async () => {
  const schema = {
    type: 'object',
    properties: { ok: { type: 'boolean' } },
    required: ['ok'],
  };
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^shape it$',
        [
          [
            subagentCall('loom child', 'check x', { provider: 'acp', output_schema: schema }),
            subagentCall('foreign child', 'check y', { provider: 'fake', output_schema: schema }),
          ],
        ],
        'done',
      ),
      { when: '^check x$', output: { ok: true } },
    ],
  });
  const pids = join(folders.home, 'agent-pids');
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `subagents:\n  providers:\n    fake:\n      type: acp\n      command: ${JSON.stringify(process.execPath)}\n      args: [${JSON.stringify(fakeAgent)}]\n      env: { FAKE_AGENT_PIDS: ${JSON.stringify(pids)} }\n`,
  );
  const run = await runScripted(folders, 'shape it', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const lines = ndjsonLines(run.stdout);
  const [loomChild, foreignChild] = toolResults(lines, 'subagent');
  assert.equal(loomChild?.isError, false, loomChild?.content);
  assert.deepEqual(JSON.parse(loomChild?.content ?? ''), { ok: true });
  assert.equal(foreignChild?.isError, true);
  assert.equal(foreignChild?.errorCode, 'UNSUPPORTED_CAPABILITY');
  assert.match(foreignChild?.content ?? '', /subagent provider fake does not support outputSchema/);
  assert.equal(existsSync(pids), false, 'the foreign agent never started');

  // The Loom child's own session answered through structured_output.
  const remote = remoteSessions(sessions(folders.home));
  assert.equal(remote.length, 1, 'one loom acp session');
  const [served] = remote as [LoadedSession];
  assert.ok(toolNamesOf(served).includes('structured_output'));
  assert.ok(
    served.events.some(
      (event) =>
        event.type === 'tool/call' &&
        (event.data as { name?: string }).name === 'structured_output',
    ),
  );
});
