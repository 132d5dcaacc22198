/**
 * Deferred tools stay reachable where the default case does not show it (issue 36): a child whose
 * type allows deferred tools only, MCP tools past the first twenty (and `tools.eagerMcpTools`),
 * and `load_tools` inside a Code Mode program, whose next request's SDK declares what it loaded.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ModelToolSpec } from '../../src/llm/contract.js';
import { writeTree } from '../helpers/file-tree.js';
import { callsThenReply, subagentCall } from '../helpers/scripted-turns.js';
import { ndjsonLines, requestPrompts, sessions, toolResults } from '../helpers/session-files.js';
import { stdioServerYaml } from '../mcp/mcp-fixtures.js';
import { runScripted, scriptedFolders } from './loom-process.js';

const names = (tools: readonly ModelToolSpec[]) => tools.map((tool) => tool.name);
const listingOf = (tools: readonly ModelToolSpec[]) =>
  tools.find((tool) => tool.name === 'load_tools')?.description ?? '';

test('a child whose type allows only deferred tools is offered load_tools, loads one and calls it', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^delegate$',
        [subagentCall('watch', 'list jobs', { agent_type: 'watcher' })],
        'child: {{lastToolResult}}',
      ),
      callsThenReply(
        '^list jobs$',
        [
          { name: 'load_tools', arguments: { names: ['job_list'] } },
          { name: 'job_list', arguments: {} },
        ],
        'jobs: {{lastToolResult}}',
      ),
    ],
  });
  writeTree(folders.workspace, {
    '.loom/agents/watcher.md': [
      '---',
      'name: watcher',
      'description: Watches the background jobs',
      'tools: job_list, recall',
      '---',
      'You watch jobs.',
      '',
    ].join('\n'),
  });
  const result = await runScripted(folders, 'delegate');
  assert.equal(result.code, 0, result.stderr);
  const child = sessions(folders.home).find((session) => session.header.delegationDepth === 1);
  assert.ok(child, 'the child ran');
  const requests = requestPrompts(child.events, join(folders.home, 'sessions'));
  assert.equal(requests.length, 3);
  const [first, second] = requests.map((request) => names(request.tools));
  assert.ok(first?.includes('load_tools'), `load_tools is offered: ${first?.join(', ')}`);
  assert.ok(!first?.includes('job_list'), 'no job_list schema before the load');
  assert.match(listingOf(requests[0]?.tools ?? []), /^- job_list: .+$/m);
  assert.match(listingOf(requests[0]?.tools ?? []), /^- recall: .+$/m);
  assert.doesNotMatch(listingOf(requests[0]?.tools ?? []), /^- job_kill: /m, 'what the type hides');
  assert.ok(second?.includes('job_list'), 'the next request carries job_list');
  assert.ok(!second?.includes('recall'), 'only what was loaded');
  const [listing] = toolResults(child.events, 'job_list');
  assert.equal(listing?.isError, false, listing?.content);
  assert.match(result.stdout, /child: jobs: You have no background jobs\./);
});

/** Folders whose config runs four six-tool stdio fixtures: 24 MCP tools. */
function fourServers(model: unknown, extra = '') {
  const folders = scriptedFolders(model);
  const servers = ['alpha', 'beta', 'gamma', 'delta']
    .map((name) => `    ${name}: ${stdioServerYaml(name, join(folders.home, `${name}.pids`))}`)
    .join('\n');
  writeFileSync(join(folders.home, 'config.yaml'), `mcp:\n  servers:\n${servers}\n${extra}`);
  return folders;
}

test('MCP tools past the first twenty are listed by name until called; tools.eagerMcpTools raises the count', async () => {
  const probe = fourServers({ default: { reply: 'ok' } });
  assert.equal((await runScripted(probe, 'hi')).code, 0);
  const [firstProbe] = requestPrompts(sessions(probe.home)[0]?.events ?? []);
  const inFull = names(firstProbe?.tools ?? []).filter((name) => name.startsWith('mcp__'));
  assert.equal(inFull.length, 20, inFull.join(', '));
  const listed = [...listingOf(firstProbe?.tools ?? []).matchAll(/^- (mcp__\w+): /gm)].map(
    (match) => match[1] ?? '',
  );
  assert.equal(listed.length, 4, `four listed: ${listed.join(', ')}`);
  assert.deepEqual([...inFull, ...listed].sort().length, 24);
  // The fixture's tools that answer plainly (not `crash` or `fail`).
  const whoami = listed.find((name) => !/__(crash|fail)$/.test(name)) ?? '';
  assert.ok(whoami, 'a listed tool that answers');

  // A direct call of a listed MCP tool runs and loads it.
  const folders = fourServers({
    rules: [callsThenReply('^who$', [{ name: whoami, arguments: {} }], 'got {{lastToolResult}}')],
  });
  const result = await runScripted(folders, 'who', { json: true });
  assert.equal(result.code, 0, result.stderr);
  const [called] = toolResults(ndjsonLines(result.stdout), whoami);
  assert.equal(called?.isError, false, called?.content);
  const loaded = ndjsonLines(result.stdout).filter((line) => line.type === 'tools/loaded');
  assert.deepEqual(
    loaded.map((line) => line.data.names),
    [[whoami]],
  );
  const second = requestPrompts(sessions(folders.home)[0]?.events ?? [])[1];
  assert.ok(names(second?.tools ?? []).includes(whoami), 'its schema is in the next request');

  const eager = fourServers({ default: { reply: 'ok' } }, 'tools:\n  eagerMcpTools: 30\n');
  assert.equal((await runScripted(eager, 'hi')).code, 0);
  const [firstEager] = requestPrompts(sessions(eager.home)[0]?.events ?? []);
  const eagerNames = names(firstEager?.tools ?? []).filter((name) => name.startsWith('mcp__'));
  assert.equal(eagerNames.length, 24);
  assert.doesNotMatch(listingOf(firstEager?.tools ?? []), /^- mcp__/m);
});

test('loom run --tools-mode code: a program calls load_tools and the next request SDK declares the loaded tool', async () => {
  const folders = scriptedFolders({
    rules: [
      callsThenReply(
        '^remind$',
        [
          {
            name: 'run_code',
            arguments: { code: "return await tools.load_tools({ names: ['schedule_list'] });" },
          },
          { name: 'run_code', arguments: { code: 'return await tools.schedule_list({});' } },
        ],
        'done: {{lastToolResult}}',
      ),
    ],
  });
  const result = await runScripted(folders, 'remind', { args: ['--tools-mode', 'code'] });
  assert.equal(result.code, 0, result.stderr);
  const [session] = sessions(folders.home);
  assert.ok(session);
  const requests = requestPrompts(session.events, join(folders.home, 'sessions'));
  assert.equal(requests.length, 3);
  const [first, second] = requests;
  assert.deepEqual(names(first?.tools ?? []), ['run_code']);
  assert.match(first?.system ?? '', /load_tools\(/, 'the SDK declares load_tools');
  assert.match(first?.system ?? '', /- schedule_list: /, 'and lists schedule_list in it');
  assert.doesNotMatch(first?.system ?? '', /schedule_list\(/, 'with no declaration yet');
  assert.match(second?.system ?? '', /schedule_list\(/, 'the next SDK declares it');
  const loaded = session.events.filter((event) => event.type === 'tools/loaded');
  assert.deepEqual(
    loaded.map((event) => (event.data as { names: string[] }).names),
    [['schedule_list']],
  );
  const inner = toolResults(session.events, 'schedule_list');
  assert.equal(inner.length, 1);
  assert.equal(inner[0]?.isError, false, inner[0]?.content);
  assert.match(result.stdout, /^done: /m);
});
