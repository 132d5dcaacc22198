import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { sessions } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('acp session/new: _meta "loom/instructions" becomes the session\'s instructions; a non-text value is refused', async () => {
  const home = temporaryFolder();
  const model = writeScriptedModel(home, { default: { reply: 'ok' } });
  await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    await assert.rejects(
      agent.request('session/new', {
        cwd: home,
        mcpServers: [],
        _meta: { 'loom/instructions': 5 },
      }),
      (error: Error) => error.message.includes('_meta.loom/instructions must be text'),
    );
    const { sessionId } = await agent.request('session/new', {
      cwd: home,
      mcpServers: [],
      _meta: { 'loom/instructions': 'Answer as a haiku.' },
    });
    const { stopReason } = await promptFor(agent, log, sessionId, 'hello');
    assert.equal(stopReason, 'end_turn');
  });
  const [session] = sessions(home);
  const blob = session?.events.find((event) => event.type === 'prompt/blob');
  assert.match(
    (blob?.data as { system?: string } | undefined)?.system ?? '',
    /Answer as a haiku\./,
  );
});
