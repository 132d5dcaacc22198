/**
 * Two sandboxed commands that overlap share the placeholders of a workspace's missing protected
 * paths: the first one's end must not remove a placeholder the second one binds (bwrap would
 * then fail with "Can't bind mount … .loom"). Both commands are only planned here; nothing runs.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Sandbox } from '../../src/sandbox/command-sandbox.js';
import { DEFAULT_SANDBOX_SETTINGS } from '../../src/sandbox/contract.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

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
