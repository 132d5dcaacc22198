/**
 * Two sandboxed commands that overlap share the placeholders of a workspace's missing protected
 * paths: the first one's end must not remove a placeholder the second one binds (bwrap would
 * then fail with "Can't bind mount … .loom"), nor may another Loom process's end, whatever its
 * LOOM_HOME (a mount's path removed outside detaches the mount, and the command could then make
 * the protected path for real). The commands are only planned here, but one that runs.
 * Every process of this file shares one TMPDIR, so the holds registry in it is this file's alone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Sandbox } from '../../src/sandbox/command-sandbox.js';
import { DEFAULT_SANDBOX_SETTINGS } from '../../src/sandbox/contract.js';
import { sharedHoldsFolder } from '../../src/sandbox/holds-registry.js';
import { startScriptProcess } from '../helpers/script-process.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

process.env.TMPDIR = temporaryFolder('loom-overlap-tmp-');
/** The registry every process here uses by default: in TMPDIR, not in any LOOM_HOME. */
const registry = sharedHoldsFolder();

test('a command planned while another holds a placeholder keeps it until its own end', () => {
  const workspace = temporaryFolder('loom-overlap-');
  const sandbox = new Sandbox({
    settings: DEFAULT_SANDBOX_SETTINGS,
    loomHome: temporaryFolder('loom-home-'),
  });
  const first = sandbox.launch(workspace, process.env);
  assert.equal(first.kind, 'sandboxed');
  const second = sandbox.launch(workspace, process.env);
  assert.equal(second.kind, 'sandboxed');
  if (first.kind !== 'sandboxed' || second.kind !== 'sandboxed') return;
  assert.ok(existsSync(join(workspace, '.loom')), 'the placeholder was made');
  first.launch.ended();
  assert.ok(existsSync(join(workspace, '.loom')), 'the second command still binds it');
  assert.ok(existsSync(join(workspace, '.mcp.json')));
  second.launch.ended();
  assert.equal(existsSync(join(workspace, '.loom')), false, 'removed after the last end');
  assert.equal(existsSync(join(workspace, '.mcp.json')), false);
});

const sandboxUrl = new URL('../../src/sandbox/command-sandbox.ts', import.meta.url).href;
const contractUrl = new URL('../../src/sandbox/contract.ts', import.meta.url).href;
const lockUrl = new URL('../../src/core/session-lock.ts', import.meta.url).href;

/**
 * Another Loom process with a sandboxed command planned in `workspace` (its protected paths
 * held), ending it when the test ends its standard input.
 */
async function commandInAnotherProcess(
  workspace: string,
  loomHome: string,
  options: { exitHolding?: boolean } = {},
) {
  const folder = temporaryFolder('loom-overlap-process-');
  const script = join(folder, 'command.mjs');
  const launch = `sandbox.launch(${JSON.stringify(workspace)}, process.env)`;
  writeFileSync(
    script,
    [
      `const { Sandbox } = await import(${JSON.stringify(sandboxUrl)});`,
      `const { DEFAULT_SANDBOX_SETTINGS: settings } = await import(${JSON.stringify(contractUrl)});`,
      `const { acquireLockFile } = await import(${JSON.stringify(lockUrl)});`,
      `const sandbox = new Sandbox({ settings, loomHome: ${JSON.stringify(loomHome)} });`,
      // As in a long session: locks taken elsewhere, commands run before, so lock anchors exist.
      `for (let n = 0; n < 4; n++) acquireLockFile(${JSON.stringify(join(folder, 'x.lock'))}, () => new Error('busy')).release();`,
      `for (let n = 0; n < 4; n++) ${launch}.launch.ended();`,
      `const decision = ${launch};`,
      `if (decision.kind !== 'sandboxed') throw new Error(decision.message);`,
      `process.stdout.write('planned\\n');`,
      `process.stdin.resume();`,
      options.exitHolding
        ? `process.stdin.on('end', () => process.exit(0));`
        : `process.stdin.on('end', () => { decision.launch.ended(); process.stdin.pause(); });`,
    ].join('\n'),
  );
  const { child, exited } = await startScriptProcess(script, 'planned');
  return {
    async end() {
      child.stdin.end();
      await exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A sandboxed command planned in `workspace` by this process, with a LOOM_HOME of its own. */
function commandHere(workspace: string) {
  const loomHome = temporaryFolder('loom-home-');
  const sandbox = new Sandbox({ settings: DEFAULT_SANDBOX_SETTINGS, loomHome });
  const decision = sandbox.launch(workspace, process.env);
  if (decision.kind !== 'sandboxed') {
    assert.fail(`not sandboxed: ${decision.kind === 'refused' ? decision.message : decision.kind}`);
  }
  return { loomHome, own: decision };
}

test("another Loom process's end, with another LOOM_HOME, does not remove a placeholder this process's command binds", async () => {
  const workspace = temporaryFolder('loom-overlap-');
  const other = await commandInAnotherProcess(workspace, temporaryFolder('loom-home-'));
  assert.ok(existsSync(join(workspace, '.loom')), 'the other process made the placeholders');
  const { loomHome, own } = commandHere(workspace);
  await other.end();
  for (const name of ['.git', '.loom', '.claude', '.mcp.json']) {
    assert.ok(existsSync(join(workspace, name)), `${name} stays while this command binds it`);
  }
  own.launch.ended();
  for (const name of ['.git', '.loom', '.claude', '.mcp.json']) {
    assert.equal(existsSync(join(workspace, name)), false, `${name} goes with the last holder`);
  }
  assert.deepEqual(readdirSync(registry), [], 'no hold, lock or marker left');
  assert.equal(existsSync(join(loomHome, 'sandbox-holds')), false, 'nothing in LOOM_HOME');
});

test('a Loom process that exits mid-command lets go of its holds, and leaves nothing in the registry', async () => {
  const workspace = temporaryFolder('loom-overlap-');
  const loomHome = temporaryFolder('loom-home-');
  const other = await commandInAnotherProcess(workspace, loomHome, { exitHolding: true });
  assert.ok(existsSync(join(workspace, '.claude')));
  await other.end();
  assert.equal(existsSync(join(workspace, '.claude')), false, 'removed at its exit');
  assert.deepEqual(readdirSync(registry), []);
});

test('the placeholders of a Loom process killed mid-command go with the next command that holds them', async () => {
  const workspace = temporaryFolder('loom-overlap-');
  const other = await commandInAnotherProcess(workspace, temporaryFolder('loom-home-'));
  await other.kill();
  assert.ok(existsSync(join(workspace, '.claude')), 'the killed process left its placeholder');
  const { own } = commandHere(workspace);
  own.launch.ended();
  assert.equal(existsSync(join(workspace, '.claude')), false, 'the dead holder does not count');
  // The killed process's lock anchor stays until another anchor is made there (session-lock.ts).
  assert.deepEqual(readdirSync(registry), ['.lock-anchors']);
});

test("a running command cannot make a protected path after another Loom process's command ends, whatever its LOOM_HOME", async () => {
  const workspace = temporaryFolder('loom-overlap-');
  const other = await commandInAnotherProcess(workspace, temporaryFolder('loom-home-'));
  const { own } = commandHere(workspace);
  const [command, ...args] = own.launch.launcher;
  const script = 'echo mounted; read go; mkdir -p .claude/hooks .git/hooks; echo "made: $?"';
  const inside = spawn(command as string, [...args, 'sh', '-c', script], {
    cwd: workspace,
    env: own.launch.env,
    stdio: 'pipe',
  });
  inside.stdout.setEncoding('utf8');
  let output = '';
  const mounted = new Promise<void>((resolve) => {
    inside.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('mounted\n')) resolve();
    });
  });
  const exited = once(inside, 'exit');
  await mounted;
  await other.end();
  inside.stdin.end('go\n');
  await exited;
  own.launch.ended();
  assert.match(output, /made: 1/, 'mkdir failed inside');
  assert.equal(existsSync(join(workspace, '.claude')), false, 'nothing made it on the host');
  assert.equal(existsSync(join(workspace, '.git')), false);
});
