/**
 * The workspace's custom commands over ACP: offered in `available_commands_update` with their
 * descriptions and argument hints (but for one named like a built-in command, which wins), and
 * `/NAME args` sent as a prompt runs the command's turn with its body filled in; a command that
 * cannot run is answered with why and never reaches the model.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { writeScriptedModel } from '../cli/loom-process.js';
import { initialize, promptFor, withAcpInProcess } from '../helpers/acp-client.js';
import { writeTree } from '../helpers/file-tree.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

test('acp: custom commands are available commands, and /fix 42 runs the substituted body', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  writeTree(workspace, {
    '.claude/commands/fix.md':
      '---\ndescription: Fix a GitHub issue\nargument-hint: [issue-number]\n---\nFix issue #$1 and explain it.\n',
    '.claude/commands/git/log.md': 'Summarise the last $1 commits.\n',
    '.claude/commands/compact.md': 'A custom compact the built-in one hides.\n',
    '.claude/commands/alias.md': '---\nmodel: sonnet\n---\nRuns on an alias.\n',
  });
  const model = writeScriptedModel(home, { default: { reply: 'model got: {{prompt}}' } });
  await withAcpInProcess({ home, model }, async (agent, log) => {
    await initialize(agent);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const offered = await log.waitFor(
      (update) => update.sessionUpdate === 'available_commands_update',
    );
    assert.ok(offered.sessionUpdate === 'available_commands_update');
    const custom = offered.availableCommands.filter((command) =>
      ['fix', 'git:log', 'alias'].includes(command.name),
    );
    assert.deepEqual(custom, [
      { name: 'alias', description: 'Runs on an alias.' },
      { name: 'fix', description: 'Fix a GitHub issue', input: { hint: '[issue-number]' } },
      { name: 'git:log', description: 'Summarise the last $1 commits.' },
    ]);
    const compacts = offered.availableCommands.filter((command) => command.name === 'compact');
    assert.equal(compacts.length, 1);
    assert.match(compacts[0]?.description ?? '', /^Compact the context now/);

    const fixed = await promptFor(agent, log, sessionId, '/fix 42');
    assert.equal(fixed.stopReason, 'end_turn');
    assert.equal(fixed.text, 'model got: Fix issue #42 and explain it.');
    const grouped = await promptFor(agent, log, sessionId, '/git:log 3');
    assert.equal(grouped.text, 'model got: Summarise the last 3 commits.');
    const refused = await promptFor(agent, log, sessionId, '/alias');
    assert.equal(refused.stopReason, 'end_turn');
    assert.match(
      refused.text,
      /^\/alias cannot run: .*alias\.md:2: model: "sonnet" is not a model spec/,
    );

    const { events } = loadSessionFile(join(home, 'sessions', `${sessionId}.jsonl`));
    const messages = events
      .filter((event) => event.type === 'user/message')
      .map((event) => (event as SessionEvent<'user/message'>).data.text);
    assert.deepEqual(messages, ['Fix issue #42 and explain it.', 'Summarise the last 3 commits.']);
    const runs = events
      .filter((event) => event.type === 'command/run')
      .map((event) => (event as SessionEvent<'command/run'>).data);
    assert.deepEqual(runs, [
      { name: 'fix', file: '.claude/commands/fix.md', arguments: '42' },
      { name: 'git:log', file: '.claude/commands/git/log.md', arguments: '3' },
    ]);
  });
});
