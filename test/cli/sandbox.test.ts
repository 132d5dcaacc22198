/**
 * The sandbox through `bin/loom run` with the scripted model (SPEC §11, issue 34's acceptance):
 * in `workspace-write` a `bash` command cannot write outside the workspace, read a planted
 * `~/.ssh/id_test`, reach a loopback HTTP server, or write `.claude/settings.json`,
 * `.loom/config.yaml` or `.git/hooks/pre-commit`, while it can build, test and commit inside the
 * workspace; the same commands succeed with `sandbox.mode: off`. Then `outside_sandbox` (refused
 * headless, allowed by an `allow` rule with `sandbox: false`), the file tools on protected paths,
 * `read-only` mode, and a PATH without bwrap.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { bashCall } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { fetchCommand, loopbackServer, runCalls, sandboxWorld } from './sandbox-fixture.js';

const loopback = await loopbackServer();
after(() => loopback.server.close());

function acceptanceCommands(outside: string) {
  return {
    writeOutside: `echo escaped > ${outside}/escape.txt`,
    readKey: 'cat "$HOME/.ssh/id_test"',
    network: fetchCommand(loopback.url),
    claude: `mkdir -p .claude && echo '{"hooks":{}}' > .claude/settings.json`,
    loom: `mkdir -p .loom && echo '# planted' > .loom/config.yaml`,
    hook: `echo 'echo hooked' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
    build:
      `mkdir -p src && echo 'console.log(6 * 7)' > src/main.js && "${process.execPath}" src/main.js && ` +
      'echo scratch > /tmp/scratch.txt && cat /tmp/scratch.txt && ' +
      // git runs a hook with its output on stderr: joined to stdout, its line keeps its place.
      'git add src && git -c user.name=t -c user.email=t@t commit -qm build 2>&1 && git log --oneline | wc -l',
  };
}

const planted = ['.claude/settings.json', '.loom/config.yaml', '.git/hooks/pre-commit'];

test('workspace-write: bash cannot escape, and can still build, test and commit in the workspace', async () => {
  const world = sandboxWorld('');
  const commands = acceptanceCommands(world.outside);
  const names = Object.keys(commands) as (keyof typeof commands)[];
  const run = await runCalls(
    world,
    names.map((name) => bashCall(commands[name])),
  );
  assert.equal(run.code, 0, run.stderr);
  const result = Object.fromEntries(names.map((name, index) => [name, run.contents[index] ?? '']));
  const { workspace } = world.folders;
  assert.ok(!existsSync(join(world.outside, 'escape.txt')));
  assert.match(
    result.writeOutside ?? '',
    /Read-only file system[\s\S]*\[sandbox: .*sandbox\.writable/,
  );
  assert.ok(!(result.readKey ?? '').includes(world.secret), result.readKey);
  assert.match(result.readKey ?? '', /\.ssh is hidden/);
  assert.match(
    result.network ?? '',
    /unreachable[\s\S]*\[sandbox: the command has a network of its own.*sandbox\.network: true/,
  );
  for (const name of ['claude', 'loom', 'hook'] as const) {
    assert.match(result[name] ?? '', /Read-only file system/, `${name}: ${result[name]}`);
    assert.match(result[name] ?? '', /stays read-only to sandboxed commands/);
  }
  for (const path of planted) assert.ok(!existsSync(join(workspace, path)), `${path} was written`);
  // The placeholders that kept .claude/, .loom/ and .mcp.json from being made are gone again.
  for (const path of ['.claude', '.loom', '.mcp.json']) {
    assert.ok(!existsSync(join(workspace, path)), `${path} was left behind`);
  }
  assert.match(result.build ?? '', /^42\nscratch\n1\n\[exit code: 0\]$/);
  assert.equal(readFileSync(join(workspace, 'src/main.js'), 'utf8'), 'console.log(6 * 7)\n');
});

test('sandbox.mode: off runs the same commands as Loom would, escapes included', async () => {
  const world = sandboxWorld('sandbox:\n  mode: off\n');
  const commands = acceptanceCommands(world.outside);
  const names = Object.keys(commands) as (keyof typeof commands)[];
  const run = await runCalls(
    world,
    names.map((name) => bashCall(commands[name])),
  );
  assert.equal(run.code, 0, run.stderr);
  const result = Object.fromEntries(names.map((name, index) => [name, run.contents[index] ?? '']));
  assert.equal(readFileSync(join(world.outside, 'escape.txt'), 'utf8'), 'escaped\n');
  assert.ok((result.readKey ?? '').includes(world.secret));
  assert.match(result.network ?? '', /^reachable\n\[exit code: 0\]$/);
  for (const path of planted) assert.ok(existsSync(join(world.folders.workspace, path)), path);
  // Unconfined, the planted pre-commit hook runs at the next commit: what the sandbox prevents.
  assert.match(result.build ?? '', /^42\nscratch\nhooked\n1\n\[exit code: 0\]$/);
});

test('outside_sandbox: refused headless with the rule that allows it; an allow rule with sandbox: false runs it outside', async () => {
  const world = sandboxWorld('');
  const allowed = `echo allowed > ${join(world.outside, 'allowed.txt')}`;
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    join(world.folders.home, 'config.yaml'),
    [
      'permissions:',
      '  - tool: bash',
      `    match: { command: ${JSON.stringify(allowed)} }`,
      '    action: allow',
      '    sandbox: false',
      '',
    ].join('\n'),
  );
  const refused = `echo refused > ${join(world.outside, 'refused.txt')}`;
  const run = await runCalls(world, [
    bashCall(refused, { outside_sandbox: true }),
    bashCall(allowed, { outside_sandbox: true }),
    bashCall(allowed),
    { name: 'write_file', arguments: { path: '.claude/settings.json', content: '{}' } },
    {
      name: 'edit_file',
      arguments: {
        path: '.git/config',
        old_string: '[core]',
        new_string: '[core]\n\tfsmonitor = evil',
      },
    },
    { name: 'write_file', arguments: { path: 'notes.txt', content: 'fine' } },
  ]);
  assert.equal(run.code, 0, run.stderr);
  const [outsideRefused, outsideAllowed, insideAllowed, claude, gitConfig, notes] = run.contents;
  assert.match(
    outsideRefused ?? '',
    /run outside the sandbox\?.*action: allow, sandbox: false \} allows it without asking\), but nobody is available to approve it/,
  );
  assert.ok(!existsSync(join(world.outside, 'refused.txt')));
  assert.equal(outsideAllowed, '[exit code: 0]');
  assert.equal(readFileSync(join(world.outside, 'allowed.txt'), 'utf8'), 'allowed\n');
  // Without outside_sandbox the rule's command still runs in the sandbox (and is stopped).
  assert.match(insideAllowed ?? '', /Read-only file system/);
  assert.match(
    claude ?? '',
    /write_file would change \.claude\/settings\.json, and a hook or config here runs outside the sandbox at the next run.*nobody is available/,
  );
  assert.match(gitConfig ?? '', /edit_file would change \.git\/config/);
  assert.ok(!existsSync(join(world.folders.workspace, '.claude/settings.json')));
  assert.ok(!readFileSync(join(world.folders.workspace, '.git/config'), 'utf8').includes('evil'));
  assert.match(notes ?? '', /wrote 4 bytes to notes\.txt/);
});

test('read-only: bash cannot write the workspace and the file tools refuse, naming sandbox.mode', async () => {
  const world = sandboxWorld('sandbox:\n  mode: read-only\n');
  const run = await runCalls(world, [
    bashCall('echo x > made.txt'),
    bashCall('cat .git/HEAD && echo x > /tmp/scratch && cat /tmp/scratch'),
    { name: 'write_file', arguments: { path: 'made.txt', content: 'x' } },
  ]);
  assert.equal(run.code, 0, run.stderr);
  const [bashWrite, bashRead, fileWrite] = run.contents;
  assert.match(bashWrite ?? '', /Read-only file system/);
  assert.match(bashRead ?? '', /^ref: refs\/heads\/\S+\nx\n\[exit code: 0\]$/);
  assert.match(fileWrite ?? '', /write_file was denied: sandbox\.mode is read-only/);
  assert.ok(!existsSync(join(world.folders.workspace, 'made.txt')));
});

test('without bwrap on PATH, workspace-write refuses every command with one message and runs nothing', async () => {
  const world = sandboxWorld('');
  // A PATH with the shell and tools the run needs, and no bwrap.
  const bin = temporaryFolder('loom-no-bwrap-');
  for (const tool of ['bash', 'sh', 'touch', 'env']) {
    const found = ['/usr/bin', '/bin'].map((folder) => join(folder, tool)).find(existsSync);
    if (found) symlinkSync(found, join(bin, tool));
  }
  mkdirSync(join(bin, 'empty'));
  const run = await runCalls(
    world,
    [bashCall('touch ran.txt'), bashCall('touch also.txt', { run_in_background: true })],
    { PATH: bin },
  );
  assert.equal(run.code, 0, run.stderr);
  for (const content of run.contents) {
    assert.match(
      content,
      /^bash was not run: .*needs bubblewrap, and bwrap is not on PATH: install bubblewrap \(apt-get install bubblewrap\) or set sandbox\.mode: off/,
    );
  }
  assert.equal(run.contents.length, 2);
  assert.ok(!existsSync(join(world.folders.workspace, 'ran.txt')));
  assert.ok(!existsSync(join(world.folders.workspace, 'also.txt')));
});
