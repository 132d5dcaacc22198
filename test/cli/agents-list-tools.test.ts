/**
 * `loom agents list [--json]` names the tools of a type's list no child can be given, with why:
 * a tool only root agents get (`schedule_list`), a misspelled one with the closest known name, an
 * MCP tool of a server config does not declare (a declared server's names are left alone: its
 * tools are known only once it runs, and the listing starts none). The exit code stays 0.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeTree } from '../helpers/file-tree.js';
import { ndjsonLines } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom } from './loom-process.js';

const WATCHER = [
  '---',
  'name: watcher',
  'description: Watches the build',
  'tools: [read_file, schedule_list, raed_file, mcp__github__issues, mcp__gthub__issues]',
  '---',
  'Watch the build.',
  '',
].join('\n');

const ALARM = '---\nname: alarm\ndescription: Sets alarms\ntools: [schedule_create]\n---\nBeep.\n';

const ROOT_ONLY = /schedule_list \(only root agents get it[^)]*\)/;

test('loom agents list: a root-only tool, a misspelled one and an unconfigured MCP server are named with why', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  writeTree(workspace, { '.loom/agents/watcher.md': WATCHER, '.loom/agents/alarm.md': ALARM });
  // Never started by the listing: a command that does not exist would fail if it were.
  writeFileSync(
    join(home, 'config.yaml'),
    'mcp:\n  servers:\n    github: { command: /nonexistent/github-mcp }\n',
  );

  const table = await runLoom(['agents', 'list', '--cwd', workspace], { home });
  assert.equal(table.code, 0, table.stderr);
  assert.equal(table.stderr, '');
  const rows = table.stdout.split('\n');
  assert.match(rows[0] ?? '', /^NAME +ORIGIN +DESCRIPTION +PATH$/);
  assert.ok(
    rows.some((row) => /^watcher +project +Watches the build +\S+watcher\.md$/.test(row)),
    table.stdout,
  );
  const watcher = rows.find((row) => row.startsWith('note: agent type watcher '));
  assert.ok(watcher, table.stdout);
  assert.match(watcher, ROOT_ONLY);
  assert.match(watcher, /raed_file \(unknown tool, did you mean read_file\?\)/);
  assert.match(
    watcher,
    /mcp__gthub__issues \(no MCP server gthub is configured, did you mean github\?\)/,
  );
  assert.doesNotMatch(
    watcher,
    /mcp__github__issues \(/,
    "a configured server's tool is not judged",
  );
  assert.match(watcher, /the child gets the rest \(read_file, mcp__github__issues\)$/);
  const alarm = rows.find((row) => row.startsWith('note: agent type alarm '));
  assert.match(
    alarm ?? '',
    /schedule_create \(only root agents get it.*the child has NO usable tools at all$/,
  );
  assert.equal(
    rows.filter((row) => row.startsWith('note:')).length,
    2,
    'the built-in types name no such tool',
  );

  const json = await runLoom(['agents', 'list', '--json', '--cwd', workspace], { home });
  assert.equal(json.code, 0, json.stderr);
  const lines = ndjsonLines<Record<string, unknown>>(json.stdout);
  const typed = lines.find((line) => line.name === 'watcher');
  const unreachable = typed?.unreachableTools as Array<Record<string, string>> | undefined;
  assert.deepEqual(
    unreachable?.map((tool) => [tool.name, tool.kind, tool.suggestion]),
    [
      ['schedule_list', 'not-for-children', undefined],
      ['raed_file', 'unknown', 'read_file'],
      ['mcp__gthub__issues', 'mcp-server', 'github'],
    ],
  );
  assert.match(unreachable?.[0]?.reason ?? '', /^only root agents get it/);
  const explore = lines.find((line) => line.name === 'Explore');
  assert.equal(
    explore?.unreachableTools,
    undefined,
    'a type naming only reachable tools is unchanged',
  );
});
