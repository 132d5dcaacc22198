import assert from 'node:assert/strict';
import { test } from 'node:test';
import type * as acp from '@agentclientprotocol/sdk';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const questions = [
  {
    question: 'Which database should the service use?',
    header: 'Database',
    options: [{ label: 'Postgres' }, { label: 'SQLite' }],
  },
  {
    question: 'Which features first?',
    options: [{ label: 'search' }, { label: 'export' }],
    multiSelect: true,
  },
];

/** A home whose scripted model asks `questions` on "plan the service", and a workspace. */
function askingFolders() {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      callsThenReply(
        'plan the service',
        [{ name: 'ask_user_question', arguments: { questions } }],
        'result: {{lastToolResult}}',
      ),
    ],
  });
  return { home, workspace, model };
}

test('loom acp: ask_user_question is answered by the client, one permission request per question', async () => {
  const { home, workspace, model } = askingFolders();
  const requests: acp.RequestPermissionRequest[] = [];
  const choose = (request: acp.RequestPermissionRequest): acp.RequestPermissionResponse => {
    requests.push(request);
    const wanted = requests.length === 1 ? 'SQLite' : 'export';
    const option = request.options.find((candidate) => candidate.name === wanted);
    assert.ok(option, `no option ${wanted} in ${JSON.stringify(request.options)}`);
    return { outcome: { outcome: 'selected', optionId: option.optionId } };
  };
  await withAcpInProcess({ home, model, permission: choose }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    await log.waitFor((update) => update.sessionUpdate === 'available_commands_update');
    const { stopReason, text, updates } = await promptFor(
      agent,
      log,
      sessionId,
      'plan the service',
    );
    assert.equal(stopReason, 'end_turn');
    assert.match(text, /"Which database should the service use\?" → "SQLite"/);
    assert.match(text, /"Which features first\?" → "export"/);
    assert.deepEqual(
      requests.map((request) => [
        request.sessionId,
        request.toolCall.title,
        request.options.map((o) => o.name),
      ]),
      [
        [sessionId, 'Database: Which database should the service use?', ['Postgres', 'SQLite']],
        [sessionId, 'Which features first?', ['search', 'export']],
      ],
    );
    const call = updates.find((update) => update.sessionUpdate === 'tool_call');
    assert.ok(call?.sessionUpdate === 'tool_call');
    assert.equal(requests[0]?.toolCall.toolCallId, call.toolCallId);
  });
});

test('loom acp: a question the client dismisses is NO_USER for the model', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      callsThenReply(
        'plan the service',
        [{ name: 'ask_user_question', arguments: { questions: questions.slice(0, 1) } }],
        'result: {{lastToolResult}}',
      ),
    ],
  });
  const dismiss = (): acp.RequestPermissionResponse => ({ outcome: { outcome: 'cancelled' } });
  await withAcpInProcess({ home, model, permission: dismiss }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    await log.waitFor((update) => update.sessionUpdate === 'available_commands_update');
    const { text } = await promptFor(agent, log, sessionId, 'plan the service');
    assert.match(text, /the user dismissed the question; nobody can answer here; decide yourself/);
  });
});

test('loom acp: a client that renders forms gets one form, with multi-select and "Other" text', async () => {
  const { home, workspace, model } = askingFolders();
  const forms: acp.CreateElicitationRequest[] = [];
  const fill = (request: acp.CreateElicitationRequest): acp.CreateElicitationResponse => {
    forms.push(request);
    return {
      action: 'accept',
      content: {
        question_1: 'Postgres',
        question_1_other: '',
        question_2: ['export', 'search', 'not offered'],
        question_2_other: 'offline mode too',
      },
    };
  };
  await withAcpInProcess({ home, model, elicitation: fill }, async (agent, log) => {
    await agent.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { elicitation: { form: {} } },
    });
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    await log.waitFor((update) => update.sessionUpdate === 'available_commands_update');
    const { text } = await promptFor(agent, log, sessionId, 'plan the service');
    assert.match(text, /"Which database should the service use\?" → "Postgres"/);
    assert.match(text, /"Which features first\?" → "search", "export", Other: "offline mode too"/);
    assert.equal(forms.length, 1);
    const [form] = forms;
    assert.ok(form && form.mode === 'form');
    assert.equal((form as { sessionId?: string }).sessionId, sessionId);
    const schema = (form as { requestedSchema: acp.ElicitationSchema }).requestedSchema;
    assert.deepEqual(Object.keys(schema.properties ?? {}), [
      'question_1',
      'question_1_other',
      'question_2',
      'question_2_other',
    ]);
    assert.equal(schema.properties?.question_2?.type, 'array');
  });
});
