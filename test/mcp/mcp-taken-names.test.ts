/**
 * In process, a runtime's server tool whose name a live agent already has, as its own: the
 * agent is live when the MCP layer's servers finish starting, with its own `mcp__change__wait`
 * (registered directly) and, from its session's server of the same name (the stdio fixture, as
 * an ACP client's would be), `mcp__change__whoami`. The runtime's changing server offers `wait`
 * at the start and `whoami` once its `add-tool` adds it (`tools/list_changed`): each time the
 * taken name is reported and left out, the agent's own tool keeps answering, and the server's
 * other tools still reach the agent. A later agent does not get a left-out tool.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_CALL_MS,
  DEFAULT_OUTPUT_LIMIT,
  type McpServerDeclaration,
} from '../../src/mcp/contract.js';
import { installMcp } from '../../src/mcp/install.js';
import { folderRoot } from '../../src/mcp/server-list.js';
import { connectSessionServers } from '../../src/mcp/session-servers.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { CHANGING_SERVER, STDIO_SERVER, startedPids } from './mcp-fixtures.js';

const leftOut = (name: string) =>
  `loom: MCP tool ${name} is left out: the session already has a tool of that name\n`;

function stdioServer(
  name: string,
  source: 'config' | 'client',
  args: string[],
  workspace: string,
): McpServerDeclaration {
  return {
    transport: 'stdio',
    name,
    source,
    origin: source === 'config' ? 'config' : 'the ACP client',
    command: process.execPath,
    args,
    env: {},
    workspace,
    startTimeoutMs: 30_000,
  };
}

const ownWait: ToolDefinition = {
  name: 'mcp__change__wait',
  description: "The agent's own wait",
  parameters: { type: 'object', properties: {} },
  execute: () => 'own wait answered',
};

test("a live agent's own tool of a server tool's name is kept, at the start and after tools/list_changed; the name is reported and left out", {
  timeout: 30_000,
}, async () => {
  const home = temporaryFolder();
  const model = createScriptedModel({
    rules: [
      callsThenReply(
        'go',
        [
          { name: 'mcp__change__wait', arguments: {} },
          { name: 'mcp__change__add-tool', arguments: { name: 'whoami' } },
          { name: 'mcp__change__whoami', arguments: {} },
          { name: 'mcp__change__wait', arguments: {} },
        ],
        'done',
      ),
    ],
  });
  const runtime = runtimeOver(model, home);
  const settings = {
    roots: [folderRoot(home)],
    callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
    maxCallMs: DEFAULT_MAX_CALL_MS,
  };
  const lines: string[] = [];
  const report = (line: string) => void lines.push(line);
  const handle = runtime.start();
  handle.tools.register(ownWait);
  const layer = installMcp(runtime, {
    servers: [stdioServer('change', 'config', [CHANGING_SERVER, join(home, 'wire.txt')], home)],
    settings,
    report,
  });
  const pidFile = join(home, 'session-server.pids');
  let closeSessionServers = async () => {};
  try {
    // As `loom acp` does: the session's servers give their tools after the runtime's.
    const ready = layer.ready(handle);
    const sessionServers = await connectSessionServers(
      handle,
      [stdioServer('change', 'client', [STDIO_SERVER, 'change', pidFile], home)],
      { outputLimit: DEFAULT_OUTPUT_LIMIT, settings, report, after: ready },
    );
    closeSessionServers = sessionServers.close;
    const [started] = await ready;
    assert.equal(started?.status.state, 'connected');
    assert.deepEqual(lines, [leftOut('mcp__change__wait')]);
    assert.equal(handle.tools.lookup('mcp__change__wait'), ownWait);
    const offered = handle.tools.specs().filter((spec) => spec.name === 'mcp__change__wait');
    assert.deepEqual(
      offered.map((spec) => spec.description),
      ["The agent's own wait"],
    );

    const outcome = await handle.agent.prompt('go');
    assert.equal(outcome.reason, 'completed');
    assert.equal(outcome.text, 'done');
    const results = handle.log.events
      .filter((event): event is SessionEvent<'tool/result'> => event.type === 'tool/result')
      .map((event) => [event.data.name, event.data.content]);
    const [sessionServerPid] = startedPids(pidFile);
    assert.deepEqual(results, [
      ['mcp__change__wait', 'own wait answered'],
      ['mcp__change__add-tool', 'added whoami'],
      // The session server's whoami, not the runtime's added one (`whoami says ...`).
      ['mcp__change__whoami', `change pid ${sessionServerPid}`],
      ['mcp__change__wait', 'own wait answered'],
    ]);
    assert.deepEqual(lines, [
      leftOut('mcp__change__wait'),
      leftOut('mcp__change__wait'),
      leftOut('mcp__change__whoami'),
    ]);
    assert.ok(handle.log.events.some((event) => event.type === 'mcp/tools-changed'));

    // Left out of the runtime's offer: a later agent has the server's other tools, not these.
    const later = runtime.start();
    assert.ok(later.tools.lookup('mcp__change__tick'));
    assert.equal(later.tools.lookup('mcp__change__wait'), undefined);
    assert.equal(later.tools.lookup('mcp__change__whoami'), undefined);
    later.close();
  } finally {
    handle.close();
    await closeSessionServers();
    await layer.dispose();
  }
});
