/**
 * Over ACP, with the everything server the client sends in `session/new`: its form goes to the
 * client's form elicitation (one field per form field), and its sampling request, `ask` by
 * default, is approved with the client's permission request that names the server and the key.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type * as acp from '@agentclientprotocol/sdk';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { writeScriptedModel } from '../cli/loom-process.js';
import { promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { EVERYTHING_SERVER } from './mcp-fixtures.js';

test('loom acp: an MCP server form is the client form; its sampling request asks the client first', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      callsThenReply(
        'go',
        [
          { name: 'mcp__every__trigger-elicitation-request', arguments: {} },
          { name: 'mcp__every__trigger-sampling-request', arguments: { prompt: 'over acp' } },
        ],
        'done',
      ),
      { when: '^Resource trigger-sampling-request context: over acp$', reply: 'sampled over acp' },
    ],
  });
  const forms: acp.CreateElicitationRequest[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const fill = (request: acp.CreateElicitationRequest): acp.CreateElicitationResponse => {
    forms.push(request);
    return {
      action: 'accept',
      content: { question_1_other: 'Ada', question_2: 'yes', question_9: 'Joey' },
    };
  };
  const permit = (request: acp.RequestPermissionRequest): acp.RequestPermissionResponse => {
    permissions.push(request);
    const allow = request.options.find((option) => option.kind === 'allow_once');
    assert.ok(allow, JSON.stringify(request.options));
    return { outcome: { outcome: 'selected', optionId: allow.optionId } };
  };
  await withAcpInProcess(
    { home, model, elicitation: fill, permission: permit },
    async (agent, log) => {
      await agent.request('initialize', {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { elicitation: { form: {} } },
      });
      const { sessionId } = await agent.request('session/new', {
        cwd: workspace,
        mcpServers: [
          { name: 'every', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], env: [] },
        ],
      });
      await log.waitFor((update) => update.sessionUpdate === 'available_commands_update');
      const { updates } = await promptFor(agent, log, sessionId, 'go');
      const results = updates
        .filter(
          (update) => update.sessionUpdate === 'tool_call_update' && update.status === 'completed',
        )
        .map((update) => JSON.stringify(update));
      assert.ok(
        results.some(
          (text) => text.includes('- Name: Ada') && text.includes('Agreed to terms: true'),
        ),
        results.join('\n'),
      );
      assert.ok(
        results.some((text) => text.includes('sampled over acp')),
        results.join('\n'),
      );
      assert.equal(forms.length, 1);
      const schema = (forms[0] as { requestedSchema: acp.ElicitationSchema }).requestedSchema;
      const properties = schema.properties ?? {};
      assert.equal(properties.question_1, undefined, 'a text field has no choice field');
      assert.equal(properties.question_1_other?.title, 'name');
      assert.equal(permissions.length, 1);
      assert.match(
        JSON.stringify(permissions[0]?.toolCall),
        /MCP server every asks to use the model [^"]+ for up to 100 tokens \(mcp\.servers\.every\.sampling: ask\)/,
      );
    },
  );
});

test('loom acp: a form slower than mcp.callTimeoutMs does not cancel its call: the server waits on the human', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const idleMs = 600;
  writeFileSync(join(home, 'config.yaml'), `mcp:\n  callTimeoutMs: ${idleMs}\n`);
  const model = writeScriptedModel(home, {
    rules: [
      callsThenReply(
        'go',
        [{ name: 'mcp__every__trigger-elicitation-request', arguments: {} }],
        'done',
      ),
    ],
  });
  // The human takes several idle limits to fill the form (a person, not a wait for something).
  const fill = (async () => {
    await new Promise((resolveLater) => setTimeout(resolveLater, 4 * idleMs));
    return { action: 'accept', content: { question_1_other: 'Slow Ada', question_2: 'no' } };
  }) as unknown as (request: acp.CreateElicitationRequest) => acp.CreateElicitationResponse;
  await withAcpInProcess({ home, model, elicitation: fill }, async (agent, log) => {
    await agent.request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { elicitation: { form: {} } },
    });
    const { sessionId } = await agent.request('session/new', {
      cwd: workspace,
      mcpServers: [
        { name: 'every', command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], env: [] },
      ],
    });
    await log.waitFor((update) => update.sessionUpdate === 'available_commands_update');
    const { updates } = await promptFor(agent, log, sessionId, 'go');
    const finished = updates
      .filter((update) => update.sessionUpdate === 'tool_call_update')
      .filter((update) => update.status === 'completed' || update.status === 'failed')
      .map((update) => JSON.stringify(update));
    assert.equal(finished.length, 1, finished.join('\n'));
    assert.match(finished[0] ?? '', /- Name: Slow Ada/);
  });
});
