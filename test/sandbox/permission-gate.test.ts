/**
 * The sandbox's permission gate in a real tool pipeline: `outside_sandbox: true` asks "run outside
 * the sandbox?" and runs unconfined only once approved; a refusal runs nothing; another
 * listener's deny stands; an allow rule with `sandbox: false` passes without asking; protected
 * writes by the file tools ask; `read-only` denies them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { PermissionRule } from '../../src/config/schema.js';
import { Context } from '../../src/core/context.js';
import { permissionAskerKey, ToolPipeline, toolPreExecute } from '../../src/core/tool-pipeline.js';
import { Sandbox } from '../../src/sandbox/command-sandbox.js';
import { DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../src/sandbox/contract.js';
import { sandboxGate } from '../../src/sandbox/permission-gate.js';
import { bashTool } from '../../src/tools/bash.js';
import { commandSandboxKey } from '../../src/tools/command-sandbox.js';
import { writeFileTool } from '../../src/tools/write-file.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

// Outside /tmp, which is private inside the sandbox.
const outside = realpathSync(
  mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : process.cwd(), 'loom-gate-test-')),
);
after(() => rmSync(outside, { recursive: true, force: true }));

function pipeline(options: {
  answer?: boolean;
  rules?: PermissionRule[];
  settings?: Partial<SandboxSettings>;
  deny?: boolean;
}) {
  const workspace = temporaryFolder();
  const context = new Context();
  const sandbox = new Sandbox({
    settings: { ...DEFAULT_SANDBOX_SETTINGS, ...options.settings },
    loomHome: temporaryFolder(),
  });
  context.provide(commandSandboxKey, sandbox);
  context.use(
    toolPreExecute,
    sandboxGate({ sandbox, rules: options.rules ?? [], workspaceOf: () => workspace }),
  );
  if (options.deny)
    context.use(toolPreExecute, () => ({ action: 'deny', reason: 'a hook said no' }));
  const asked: string[] = [];
  if (options.answer !== undefined) {
    const answer = options.answer;
    context.provide(permissionAskerKey, {
      ask: async ({ reason }) => {
        asked.push(reason);
        return answer;
      },
    });
  }
  const tools = new ToolPipeline({ context });
  tools.register(bashTool({ workspace: { root: workspace, extraRoots: [] } }));
  tools.register(writeFileTool({ workspace: { root: workspace, extraRoots: [] } }));
  const call = async (name: string, args: Record<string, unknown>) => {
    const [result] = await tools.executeStep({
      calls: [{ id: 'call-1', name, arguments: args }],
      agentId: 'agent-1',
      turnId: 'turn-1',
      signal: new AbortController().signal,
      concludeTurn() {},
    });
    return result?.content ?? '';
  };
  return { call, asked, workspace };
}

test('outside_sandbox asks, and runs unconfined only once approved', async () => {
  const approved = pipeline({ answer: true });
  const target = join(outside, 'approved.txt');
  assert.equal(
    await approved.call('bash', { command: `touch ${target}`, outside_sandbox: true }),
    '[exit code: 0]',
  );
  assert.ok(existsSync(target));
  assert.match(approved.asked[0] ?? '', /^run outside the sandbox\? `touch .*approved\.txt`/);
  const refused = pipeline({ answer: false });
  const other = join(outside, 'refused.txt');
  assert.match(
    await refused.call('bash', { command: `touch ${other}`, outside_sandbox: true }),
    /was not approved \(run outside the sandbox\?/,
  );
  assert.ok(!existsSync(other));
});

test("another listener's deny stands; an allow rule with sandbox: false passes without asking", async () => {
  const denied = pipeline({ answer: true, deny: true });
  const target = join(outside, 'denied.txt');
  assert.match(
    await denied.call('bash', { command: `touch ${target}`, outside_sandbox: true }),
    /a hook said no/,
  );
  assert.deepEqual(denied.asked, []);
  assert.ok(!existsSync(target));
  const ruled = join(outside, 'ruled.txt');
  const allowed = pipeline({
    rules: [
      { tool: 'bash', match: { command: `touch ${ruled}` }, action: 'allow', sandbox: false },
    ],
  });
  assert.equal(
    await allowed.call('bash', { command: `touch ${ruled}`, outside_sandbox: true }),
    '[exit code: 0]',
  );
  assert.ok(existsSync(ruled));
});

test('a protected write by a file tool asks; read-only mode denies every write', async () => {
  const asking = pipeline({ answer: true });
  assert.match(
    await asking.call('write_file', { path: '.mcp.json', content: '{"mcpServers":{}}' }),
    /wrote 17 bytes/,
  );
  assert.match(
    asking.asked[0] ?? '',
    /write_file would change \.mcp\.json, and a hook or config here runs outside the sandbox/,
  );
  assert.match(
    await asking.call('write_file', { path: 'plain.txt', content: 'x' }),
    /wrote 1 bytes/,
  );
  assert.equal(asking.asked.length, 1);
  const readOnly = pipeline({ answer: true, settings: { mode: 'read-only' } });
  assert.match(
    await readOnly.call('write_file', { path: 'plain.txt', content: 'x' }),
    /write_file was denied: sandbox\.mode is read-only/,
  );
  assert.ok(!existsSync(join(readOnly.workspace, 'plain.txt')));
});
