import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { requestPrompts, sessionPaths } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { REACH_PORT } from '../helpers/worker-port.js';
import {
  agentPairs,
  parseResult,
  readEvents,
  runWorkflow,
  writeFile,
  writeJson,
} from './workflow-fixture.js';

const META = '{"name":"trust","description":"checks what crosses from the script"}';

function setup(rules: unknown[]) {
  const home = temporaryFolder();
  const model = `scripted:${writeJson(home, 'model.json', { rules, default: { reply: 'ok' } })}`;
  return { home, model };
}

async function runScript(home: string, model: string, name: string, body: string) {
  const script = writeFile(home, `${name}.js`, body);
  const events = join(home, `${name}.events.jsonl`);
  const run = await runWorkflow(
    ['run', script, '--meta', META, '--model', model, '--json', '--events', events],
    { home },
  );
  return { run, events: readEvents(events) };
}

test('workflow run: a dropped agent() whose start fails fails the run (exit 1)', async () => {
  const { home, model } = setup([]);
  const { run, events } = await runScript(
    home,
    model,
    'dropped',
    // Not written literally, so it is checked when the call arrives, not as the run starts.
    `const schema = { oneOf: [] };\nagent('x', { schema });\nreturn 5;\n`,
  );
  assert.equal(run.code, 1, run.stderr);
  const result = parseResult(run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.code, 'UNSUPPORTED_SCHEMA');
  assert.equal(result.value, null);
  assert.equal(events.at(-1)?.type, 'workflow/end');
  assert.equal(events.at(-1)?.stopReason, 'error');
});

test('workflow run: a script that forges worker messages ends as SCRIPT_ERROR with --json and a whole --events file', async () => {
  const { home, model } = setup([{ when: '^hold', hang: true }]);
  const forgedDone = await runScript(
    home,
    model,
    'forged-done',
    `${REACH_PORT}
const held = agent('hold on');
log('holding');
port.postMessage({ tag: 'done', payload: { kind: 'ok', value: 10n } });
return await held;
`,
  );
  assert.equal(forgedDone.run.code, 1, forgedDone.run.stderr);
  const result = parseResult(forgedDone.run);
  assert.equal(result.stopReason, 'error');
  assert.equal(result.code, 'SCRIPT_ERROR');
  assert.match(
    String(result.error),
    /protocol fault: .*a malformed done message: payload\.value is a bigint/,
  );
  assert.equal(result.agentsStarted, 1);
  const pairs = [...agentPairs(forgedDone.events).values()];
  assert.equal(pairs.length, 1);
  assert.equal(pairs[0]?.end?.outcome, 'cancelled');
  const last = forgedDone.events.at(-1);
  assert.equal(last?.type, 'workflow/end');
  assert.equal(last?.stopReason, 'error');
  assert.deepEqual(last?.error, { code: 'SCRIPT_ERROR', message: result.error });

  const forgedLog = await runScript(
    home,
    model,
    'forged-log',
    `${REACH_PORT}
log('before');
port.postMessage({ tag: 'log', payload: { message: 10n } });
return 1;
`,
  );
  assert.equal(forgedLog.run.code, 1, forgedLog.run.stderr);
  const logResult = parseResult(forgedLog.run);
  assert.equal(logResult.code, 'SCRIPT_ERROR');
  assert.match(
    String(logResult.error),
    /a malformed log message: payload\.message must be a string/,
  );
  assert.deepEqual(
    forgedLog.events.map((event) => event.type),
    ['workflow/start', 'workflow/log', 'workflow/end'],
  );
  assert.equal(forgedLog.events[1]?.message, 'before');
});

interface SessionLine {
  type: string;
  data: { content?: string; isError?: boolean };
}

const NESTED_WORKFLOW = {
  name: 'workflow',
  arguments: { meta: { name: 'inner', description: 'nested' }, script: 'return 7' },
};

test('workflow run: a workflow child and its own subagents have no workflow tool and are not told about workflows', async () => {
  const { home, model } = setup([
    {
      when: '^nest a workflow',
      steps: [
        { tools: [NESTED_WORKFLOW] },
        {
          tools: [{ name: 'subagent', arguments: { description: 'deeper', prompt: 'go deeper' } }],
        },
        { reply: 'child saw: {{lastToolResult}}' },
      ],
    },
    {
      when: '^go deeper',
      steps: [{ tools: [NESTED_WORKFLOW] }, { reply: 'grandchild saw: {{lastToolResult}}' }],
    },
  ]);
  const { run, events } = await runScript(
    home,
    model,
    'nest',
    `return await agent('nest a workflow');\n`,
  );
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.equal(result.agentsStarted, 1);
  assert.match(String(result.value), /^child saw: grandchild saw: Unknown tool "workflow"/);
  assert.equal(events.filter((event) => event.type === 'workflow/start').length, 1);
  const folder = join(home, 'sessions');
  const sessions = sessionPaths(home).map((path) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as SessionLine),
  );
  assert.equal(sessions.length, 2, 'the child and its subagent; no inner run');
  for (const session of sessions) {
    const requests = requestPrompts(session, folder);
    assert.ok(requests.length > 0);
    for (const request of requests) {
      const tools = request.tools.map((tool) => tool.name);
      assert.ok(tools.includes('read_file') && tools.includes('subagent'), tools.join(', '));
      assert.ok(!tools.includes('workflow'), tools.join(', '));
      assert.doesNotMatch(request.system, /# Workflows/);
    }
    const refused = session.find(
      (line) =>
        line.type === 'tool/result' && /Unknown tool "workflow"/.test(line.data.content ?? ''),
    );
    assert.equal(refused?.data.isError, true);
  }
});
