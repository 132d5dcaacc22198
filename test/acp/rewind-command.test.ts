/**
 * `/rewind` and `/diff` over ACP with the scripted model: offered in `available_commands_update`,
 * answered as agent text and never sent to the model. `/diff` lists what the session changed
 * with the patch; `/rewind` lists the turns and what each changed; `/rewind N` only shows what a
 * file restore would apply; `/rewind N files` restores byte for byte and logs `checkpoint/restore`;
 * `/rewind N conversation` names a new session that `session/load` replays up to the turn.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { SessionStore } from '../../src/core/session-store.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('acp: /diff and /rewind list, preview, restore the files and fork the conversation', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    rules: [
      callsThenReply(
        '^first change$',
        [{ name: 'write_file', arguments: { path: 'a.txt', content: 'one\nline two\n' } }],
        'made a.txt',
      ),
      callsThenReply(
        '^second change$',
        [
          {
            name: 'edit_file',
            arguments: { path: 'a.txt', old_string: 'line two', new_string: 'line 2' },
          },
          bashCall("printf '\\000\\377' > data.bin"),
        ],
        'changed a.txt',
      ),
      { when: '.*', reply: 'the model answered {{prompt}}' },
    ],
  });
  let worked = '';
  await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    worked = sessionId;
    const offered = await log.waitFor(
      (update) => update.sessionUpdate === 'available_commands_update',
    );
    assert.ok(offered.sessionUpdate === 'available_commands_update');
    const rewind = offered.availableCommands.find((command) => command.name === 'rewind');
    assert.deepEqual(rewind?.input, { hint: 'TURN files|conversation|both' });
    assert.ok(offered.availableCommands.some((command) => command.name === 'diff'));
    await promptFor(agent, log, sessionId, 'first change');
    await promptFor(agent, log, sessionId, 'second change');

    const diff = await promptFor(agent, log, sessionId, '/diff');
    assert.equal(diff.stopReason, 'end_turn');
    assert.match(
      diff.text,
      /^Changed since this session began \(2 paths\):\n- A a\.txt \+2 -0\n- A data\.bin binary\n/,
    );
    assert.match(diff.text, /^```diff\ndiff --git a\/a\.txt b\/a\.txt$/m);
    assert.match(diff.text, /^\+line 2$/m);

    const list = await promptFor(agent, log, sessionId, '/rewind');
    assert.match(list.text, /^1\. first change — 1 file \+2 -0$/m);
    assert.match(list.text, /^2\. second change — 2 files \+1 -1 \(to now\)$/m);
    assert.match(list.text, /^ {3}M a\.txt \+1 -1$/m);

    const preview = await promptFor(agent, log, sessionId, '/rewind 2');
    assert.match(
      preview.text,
      /^Restoring the files as turn 2 began would change:\n- M a\.txt \+1 -1\n- D data\.bin binary\n/,
    );
    assert.match(preview.text, /^-line 2\n\+line two$/m);
    assert.match(preview.text, /\/rewind 2 files \(or both\) restores them/);
    assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'one\nline 2\n');

    const wrong = await promptFor(agent, log, sessionId, '/rewind 9 files');
    assert.match(wrong.text, /has no turn "9": its turns are 1 to 2/);
    const unknown = await promptFor(agent, log, sessionId, '/rewind 2 sideways');
    assert.match(
      unknown.text,
      /^\/rewind does not take "2 sideways"\. Use \/rewind to list the turns/,
    );

    const files = await promptFor(agent, log, sessionId, '/rewind 2 files');
    assert.equal(files.text, 'Files: restored as turn 2 began (2 paths):\n- M a.txt\n- D data.bin');
    assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'one\nline two\n');
    assert.equal(existsSync(join(workspace, 'data.bin')), false);

    const conversation = await promptFor(agent, log, sessionId, '/rewind 2 conversation');
    const fork = /in a new session, (\S+);/.exec(conversation.text)?.[1];
    assert.ok(fork && fork !== sessionId, conversation.text);
    assert.match(conversation.text, new RegExp(`this session \\(${sessionId}\\) stays whole`));

    const from = log.updates.length;
    await agent.request('session/load', { sessionId: fork, cwd: workspace, mcpServers: [] });
    const replayed = log.updates
      .slice(from)
      .filter((update) => update.sessionUpdate === 'user_message_chunk')
      .map((update) =>
        update.sessionUpdate === 'user_message_chunk' && update.content.type === 'text'
          ? update.content.text
          : '',
      );
    assert.deepEqual(replayed, ['first change']);
    const next = await promptFor(agent, log, fork, 'in the fork');
    assert.equal(next.text, 'the model answered in the fork');
  });
  const events = loadSessionFile(new SessionStore(home).pathOf(worked)).events;
  const restores = events
    .filter((event) => event.type === 'checkpoint/restore')
    .map((event) => {
      const { files, conversation, number } = event.data as Record<string, unknown>;
      return { files, conversation, number };
    });
  assert.deepEqual(restores, [
    { files: true, conversation: false, number: 2 },
    { files: false, conversation: true, number: 2 },
  ]);
  const users = events
    .filter((event) => event.type === 'user/message')
    .map((event) => (event.data as { text: string }).text);
  assert.deepEqual(users, ['first change', 'second change'], 'no command reached the model');
});
