/**
 * A stdio MCP server declared with `sandbox: true`, through bin/loom: it runs under bubblewrap
 * as `bash` does (its own pid namespace, `$LOOM_HOME` hidden and read-only, the workspace
 * writable), a start that fails there quotes the server's standard error, and once the run ends
 * the workspace's placeholders and the sandbox's holds are gone.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { runLoom, runScripted, scriptedFolders } from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { ndjsonLines } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { STDIO_SERVER } from './mcp-fixtures.js';

/** The repository (the fixture and its node_modules), visible where it lies under /tmp too. */
const REPOSITORY = resolve('.');

function sandboxedServer(home: string, pidFile: string): void {
  const server = {
    command: process.execPath,
    args: [STDIO_SERVER, 'files', pidFile],
    sandbox: true,
  };
  writeFileSync(
    join(home, 'config.yaml'),
    `sandbox:\n  writable: [${JSON.stringify(REPOSITORY)}]\n` +
      `mcp:\n  servers:\n    files: ${JSON.stringify(server)}\n`,
  );
}

test('loom run: a sandbox: true stdio server runs under bwrap and leaves no placeholder behind', async () => {
  const folders = scriptedFolders({
    rules: [callsThenReply('who', [{ name: 'mcp__files__whoami', arguments: {} }], 'done')],
  });
  const pidFile = join(folders.workspace, 'server.pid');
  sandboxedServer(folders.home, pidFile);
  // A TMPDIR of its own: the sandbox's holds registry is there (shared whatever the LOOM_HOME).
  const temporary = temporaryFolder('loom-mcp-sandboxed-tmp-');
  const run = await runScripted(folders, 'who', { json: true, env: { TMPDIR: temporary } });
  assert.equal(run.code, 0, run.stderr);
  const result = ndjsonLines<{ type: string; data: { content?: string; isError?: boolean } }>(
    run.stdout,
  ).find((event) => event.type === 'tool/result');
  assert.equal(result?.data.isError, false, result?.data.content);
  const pid = Number(/pid (\d+)/.exec(result?.data.content ?? '')?.[1]);
  assert.equal(readFileSync(pidFile, 'utf8').trim(), String(pid), 'it wrote in the workspace');
  assert.ok(pid < 10, `pid ${pid}: the server has a pid namespace of its own`);
  assert.deepEqual(readdirSync(folders.workspace), ['server.pid'], 'no placeholder is left');
  assert.deepEqual(readdirSync(join(temporary, `loom-sandbox-holds-${process.getuid?.()}`)), []);
  assert.equal(existsSync(join(folders.home, 'sandbox-holds')), false);
});

test('loom mcp list: a sandbox: true server that cannot write LOOM_HOME fails, quoting its standard error', async () => {
  const folders = scriptedFolders({ rules: [] });
  sandboxedServer(folders.home, join(folders.home, 'server.pid'));
  const listed = await runLoom(['mcp', 'list', '--cwd', folders.workspace], {
    home: folders.home,
  });
  assert.equal(listed.code, 0, listed.stderr);
  // Hidden: an empty read-only folder, or, for a home under /tmp, absent from the private /tmp.
  assert.match(
    listed.stdout,
    /^files +stdio +config +failed: .*standard error ended with: [\s\S]*(EROFS|ENOENT)[^\n]*server\.pid/m,
  );
  assert.equal(existsSync(join(folders.home, 'server.pid')), false);
});
