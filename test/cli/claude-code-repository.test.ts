/**
 * Issue 33's acceptance through bin/loom: one repository prepared for Claude Code, with every
 * piece at once (CLAUDE.md with an `@import`, `.claude/agents/reviewer.md`,
 * `.claude/commands/fix.md`, `.claude/skills/release/SKILL.md`, a `.claude/settings.json`
 * PreToolUse hook that blocks `rm`, and `.mcp.json`), unchanged, in `loom run` and in the
 * terminal. Each piece is shown to have reached the model or acted, from the session logs: the
 * instructions and the skills section in the system prompt, the command's body as the user
 * message, the skill's body as a tool result, the reviewer's prompt and tools in its child's
 * requests, the hook's block (the file stays), and the MCP server's answer. Needs `npm run build`.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { HookRunEvent } from '../../src/project/hook-contract.js';
import { writeTree } from '../helpers/file-tree.js';
import { bashCall, callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { requestPrompts, sessions, toolResults } from '../helpers/session-files.js';
import { STDIO_SERVER } from '../mcp/mcp-fixtures.js';
import { KEYS, openLoom, quit } from '../tui/pty-screen.js';
import { runScripted, type ScriptedFolders, scriptedFolders } from './loom-process.js';

const NO_RM = [
  '#!/bin/sh',
  'input=$(cat)',
  `if printf '%s' "$input" | grep -q '"tool_name":"Bash"' && printf '%s' "$input" | grep -Eq '"command":"(.*[;&|] *)?rm '; then`,
  '  echo "rm is not allowed here (marker-hook-3390)" >&2',
  '  exit 2',
  'fi',
].join('\n');

/** The repository, as a team that uses Claude Code has it. */
function claudeCodeRepository(workspace: string): void {
  writeTree(workspace, {
    '.git/HEAD': 'ref: refs/heads/main\n',
    'CLAUDE.md': '# Project\n@docs/conventions.md\n',
    'docs/conventions.md': 'Run the linter with npm run lint (marker-import-8812).\n',
    '.claude/agents/reviewer.md':
      '---\nname: reviewer\ndescription: Reviews a change for bugs before it lands\ntools: Read, Grep\n---\nYou are the reviewer (marker-agent-5521). Answer with a verdict.\n',
    '.claude/commands/fix.md':
      '---\ndescription: Fix a GitHub issue\nargument-hint: [issue-number]\nallowed-tools: Read, Skill, Task, Bash, mcp__notes\n---\nFix issue #$ARGUMENTS following our release rules.\n',
    '.claude/skills/release/SKILL.md':
      '---\nname: release\ndescription: How this project cuts a release\n---\nBump VERSION and tag it (marker-skill-7743).\n',
    '.claude/settings.json': JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-rm.sh' }],
          },
        ],
      },
    }),
    '.claude/hooks/no-rm.sh': NO_RM,
    '.mcp.json': JSON.stringify({
      mcpServers: { notes: { command: process.execPath, args: [STDIO_SERVER, 'notes'] } },
    }),
    'build/keep.txt': 'built\n',
  });
  chmodSync(join(workspace, '.claude/hooks/no-rm.sh'), 0o755);
}

/** The fix turn uses every piece in turn: the skill, the reviewer, `rm` and the MCP server. */
function fixModel(): unknown {
  return {
    rules: [
      callsThenReply(
        '^Fix issue #42 following our release rules\\.$',
        [
          { name: 'skill', arguments: { name: 'release' } },
          subagentCall('review', 'Review the fix for issue 42', { agent_type: 'reviewer' }),
          bashCall('rm -r build'),
          { name: 'mcp__notes__echo', arguments: { text: 'issue 42' } },
        ],
        'fix done: {{lastToolResult}}',
      ),
      { when: '^Review the fix for issue 42$', reply: 'verdict: approve' },
    ],
  };
}

type UserMessage = SessionEvent<'user/message'>['data'];

/** Asserts, from the logs under `folders.home`, that each piece reached the model or acted. */
function assertEveryPieceActed(folders: ScriptedFolders): void {
  const all = sessions(folders.home);
  const root = all.find((session) => session.header.delegationDepth === 0);
  const child = all.find((session) => session.header.delegationDepth === 1);
  assert.ok(root && child, 'the run and its reviewer child were logged');
  const sessionFolder = join(folders.home, 'sessions');

  // The command: its body, with $ARGUMENTS substituted, is what the model was sent.
  const messages = root.events
    .filter((event) => event.type === 'user/message')
    .map((event) => (event.data as UserMessage).text);
  assert.deepEqual(messages, ['Fix issue #42 following our release rules.']);

  // CLAUDE.md with its import, and the skills section, in every request's system prompt.
  const rootPrompts = requestPrompts(root.events, sessionFolder);
  assert.ok(rootPrompts.length >= 5, 'a request per step');
  for (const { system } of rootPrompts) {
    assert.ok(system.includes(`Instructions from: ${join(folders.workspace, 'CLAUDE.md')}`));
    assert.ok(system.includes('# Project\nRun the linter with npm run lint (marker-import-8812).'));
    assert.match(system, /release[^\n]*How this project cuts a release/);
  }

  // The skill's body came back to the model.
  const [skill] = toolResults(root.events, 'skill');
  assert.match(skill?.content ?? '', /marker-skill-7743/);

  // The reviewer: its body is the child's system prompt, its `tools: Read, Grep` all it sees.
  const childPrompts = requestPrompts(child.events, sessionFolder);
  assert.ok(childPrompts.length >= 1);
  for (const { system, tools } of childPrompts) {
    assert.match(system, /You are the reviewer \(marker-agent-5521\)/);
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ['grep', 'read_file']);
  }
  const [review] = toolResults(root.events, 'subagent');
  assert.match(review?.content ?? '', /verdict: approve/);

  // The hook blocked rm: the model read its stderr and the folder is still there.
  const [bash] = toolResults(root.events, 'bash');
  assert.equal(bash?.isError, true);
  assert.match(bash?.content ?? '', /a PreToolUse hook blocked it: rm is not allowed here/);
  assert.ok(existsSync(join(folders.workspace, 'build/keep.txt')));
  const runs = root.events
    .filter((event) => event.type === 'hook/run')
    .map((event) => event.data as HookRunEvent);
  assert.deepEqual(
    runs.map(({ event, decision }) => [event, decision]),
    [['PreToolUse', 'block']],
  );

  // The MCP server of .mcp.json answered.
  const [mcp] = toolResults(root.events, 'mcp__notes__echo');
  assert.equal(mcp?.content, 'notes echo: issue 42');
  assert.equal(mcp?.isError, false);
}

test('a repository prepared for Claude Code works unchanged in loom run: every piece acts', async () => {
  const folders = scriptedFolders(fixModel());
  claudeCodeRepository(folders.workspace);
  const result = await runScripted(folders, '/fix 42');
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /fix done: notes echo: issue 42/);
  assert.match(result.stderr, /hook PreToolUse bash: .*no-rm\.sh → blocked: rm is not allowed/);
  assertEveryPieceActed(folders);
});

test('the same repository works unchanged in the terminal: /fix completes, every piece acts', async (t) => {
  const folders = scriptedFolders(fixModel());
  claudeCodeRepository(folders.workspace);
  const screen = await openLoom(t, folders);
  screen.type('/fi');
  await screen.waitFor(/› \/fix \[issue-number\] — Fix a GitHub issue \(\.claude\)/);
  screen.type('\t');
  await screen.waitFor(/> \/fix\s/);
  screen.type('42');
  await screen.waitFor('> /fix 42');
  screen.type(KEYS.enter);
  const done = await screen.waitFor('fix done: notes echo: issue 42');
  assert.match(done, /\/fix 42 · \.claude\/commands\/fix\.md/);
  assert.match(done, /hook PreToolUse bash/);
  await screen.waitFor(/ask loom, \/ for commands/);
  await quit(screen);
  assertEveryPieceActed(folders);
});
