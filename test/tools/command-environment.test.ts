import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Context } from '../../src/core/context.js';
import {
  CredentialVariables,
  credentialVariablesKey,
  looksLikeCredential,
} from '../../src/core/credential-variables.js';
import { bashTool } from '../../src/tools/bash.js';
import { commandEnvironment } from '../../src/tools/command-environment.js';
import { contentOf, fakeExecution, temporaryWorkspace } from './fake-execution.js';

test('names ending in _API_KEY, _TOKEN or _SECRET count as credentials, in any case', () => {
  for (const name of ['OPENAI_API_KEY', 'GITHUB_TOKEN', 'aws_secret', 'My_Api_Key']) {
    assert.equal(looksLikeCredential(name), true, name);
  }
  for (const name of ['PATH', 'TOKENS', 'SECRET_PLACE', 'API_KEYS']) {
    assert.equal(looksLikeCredential(name), false, name);
  }
});

test('registered names are hidden until their registration is undone; passthrough keeps one', () => {
  const credentials = new CredentialVariables();
  const base = { PATH: '/bin', MCP_LOGIN: 'server-login', GH_TOKEN: 'gh', OTHER_TOKEN: 'other' };
  const undo = credentials.add(['MCP_LOGIN']);
  assert.deepEqual(commandEnvironment({ base, credentials, passthrough: ['GH_TOKEN'] }), {
    PATH: '/bin',
    GH_TOKEN: 'gh',
  });
  undo();
  assert.deepEqual(commandEnvironment({ base, credentials, passthrough: [] }), {
    PATH: '/bin',
    MCP_LOGIN: 'server-login',
  });
});

test('bash reads the credential registry of the calling scope at each call', async () => {
  const context = new Context();
  const credentials = new CredentialVariables();
  context.provide(credentialVariablesKey, credentials);
  const tool = bashTool({
    workspace: temporaryWorkspace(),
    environment: { PATH: process.env.PATH, SERVER_LOGIN: 'login-value' },
  });
  const run = async () =>
    contentOf(
      await tool.execute(
        { command: 'echo "[$SERVER_LOGIN]"' },
        fakeExecution(new AbortController().signal, context),
      ),
    );
  assert.equal(await run(), '[login-value]\n[exit code: 0]');
  const undo = credentials.add(['SERVER_LOGIN']);
  assert.equal(await run(), '[]\n[exit code: 0]');
  undo();
});
