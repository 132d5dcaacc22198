/**
 * What a Loom killed mid-command leaves in the holds registry goes with the first hold another
 * process takes there, in whatever workspace: its hold files, and its placeholders while still
 * empty (one that has content stays, without its marker). Otherwise they would wait for the next
 * command in their own workspace, and, for a workspace deleted meanwhile, stay forever.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { holdPlaceholder } from '../../src/sandbox/placeholders.js';
import { startScriptProcess } from '../helpers/script-process.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

const placeholdersUrl = new URL('../../src/sandbox/placeholders.ts', import.meta.url).href;

/** Another process that holds `paths` (made as placeholders) in `registry`, then is killed. */
async function killedHolder(registry: string, paths: { path: string; kind: string }[]) {
  const script = join(temporaryFolder('loom-sweep-process-'), 'hold.mjs');
  writeFileSync(
    script,
    [
      `const { holdPlaceholder } = await import(${JSON.stringify(placeholdersUrl)});`,
      ...paths.map(
        ({ path, kind }) =>
          `holdPlaceholder(${JSON.stringify(registry)}, ${JSON.stringify(path)}, '${kind}');`,
      ),
      `process.stdout.write('held\\n');`,
      'process.stdin.resume();',
    ].join('\n'),
  );
  const { child, exited } = await startScriptProcess(script, 'held');
  child.kill('SIGKILL');
  await exited;
}

test("the first hold of a process clears what a killed Loom left for another workspace's paths", async () => {
  const registry = temporaryFolder('loom-sweep-registry-');
  const left = temporaryFolder('loom-sweep-left-');
  await killedHolder(registry, [
    { path: join(left, '.claude'), kind: 'folder' },
    { path: join(left, '.mcp.json'), kind: 'file' },
  ]);
  assert.ok(existsSync(join(left, '.claude')), 'the killed process left its placeholders');
  writeFileSync(join(left, '.mcp.json'), '{"mcpServers":{}}');
  assert.equal(readdirSync(registry).length, 4, 'two hold files and two markers');

  const workspace = temporaryFolder('loom-sweep-ws-');
  const release = holdPlaceholder(registry, join(workspace, '.loom'), 'folder');
  assert.equal(existsSync(join(left, '.claude')), false, 'the empty placeholder went');
  assert.ok(existsSync(join(left, '.mcp.json')), 'one written meanwhile stays');
  assert.equal(readdirSync(registry).filter((name) => name.endsWith('.hold')).length, 1);
  release();
  assert.deepEqual(readdirSync(registry), [], 'nothing of either process is left');
});
