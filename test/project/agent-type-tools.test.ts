/**
 * Which tools of an agent type's list no child can be given, judged against a tool catalog: a
 * name no layer declares (with the closest known one), a tool the catalog says no child gets,
 * an MCP tool of a server that is not configured; and the one-line note a child's start carries.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ToolCatalog } from '../../src/core/tool-catalog.js';
import { unreachableTools, unreachableToolsNote } from '../../src/project/agent-type-tools.js';

const ROOT_ONLY = 'only root agents get it: schedules';

function catalog(): ToolCatalog {
  const tools = new ToolCatalog();
  const object = { type: 'object', properties: {} };
  tools.declare(
    ['load_tools', 'read_file', 'grep', 'bash', 'mcp__docs__search'].map((name) => ({
      name,
      parameters: object,
    })),
  );
  tools.declare(
    ['schedule_create', 'schedule_list'].map((name) => ({ name, parameters: object })),
    { notForChildren: ROOT_ONLY },
  );
  return tools;
}

test('a root-only tool, a misspelling and an unknown name are named with why; known tools are not', () => {
  const found = unreachableTools(
    { tools: ['read_file', 'schedule_list', 'raed_file', 'frobnicate', 'grep'] },
    catalog().entries(),
  );
  assert.deepEqual(found, [
    { name: 'schedule_list', kind: 'not-for-children', reason: ROOT_ONLY },
    {
      name: 'raed_file',
      kind: 'unknown',
      reason: 'unknown tool, did you mean read_file?',
      suggestion: 'read_file',
    },
    { name: 'frobnicate', kind: 'unknown', reason: 'unknown tool' },
  ]);
});

test('no list, or only tools a child gets (answer tools included), names nothing', () => {
  const entries = catalog().entries();
  assert.deepEqual(unreachableTools({}, entries), []);
  assert.deepEqual(
    unreachableTools(
      { tools: ['read_file', 'structured_output', 'report', 'load_tools'] },
      entries,
    ),
    [],
  );
  assert.equal(unreachableToolsNote({ name: 'reader', tools: ['read_file'] }, []), undefined);
});

test('MCP names: judged against connected servers, or against the configured ones before any starts', () => {
  const entries = catalog().entries();
  // At a child's start: the catalog holds every connected server's tools.
  assert.deepEqual(
    unreachableTools({ tools: ['mcp__docs__serch', 'mcp__docs__search'] }, entries),
    [
      {
        name: 'mcp__docs__serch',
        kind: 'unknown',
        reason: 'no connected MCP server offers it, did you mean mcp__docs__search?',
        suggestion: 'mcp__docs__search',
      },
    ],
  );
  // `loom agents list`: no server has started; a configured server's names cannot be judged.
  const listed = { tools: ['mcp__github__issues', 'mcp__gthub__issues', 'mcp__jira__find'] };
  assert.deepEqual(unreachableTools(listed, entries, { configuredMcpServers: ['github'] }), [
    {
      name: 'mcp__gthub__issues',
      kind: 'mcp-server',
      reason: 'no MCP server gthub is configured, did you mean github?',
      suggestion: 'github',
    },
    {
      name: 'mcp__jira__find',
      kind: 'mcp-server',
      reason: 'no MCP server jira is configured, only github',
    },
  ]);
  assert.deepEqual(
    unreachableTools({ tools: ['mcp__jira__find'] }, entries, { configuredMcpServers: [] }),
    [{ name: 'mcp__jira__find', kind: 'mcp-server', reason: 'no MCP server is configured' }],
  );
});

test('the note names each missing tool with why, what is left, and says plainly when nothing is', () => {
  const entries = catalog().entries();
  const partial = { name: 'watcher', tools: ['grep', 'schedule_list', 'gerp'] };
  assert.equal(
    unreachableToolsNote(partial, unreachableTools(partial, entries)),
    `agent type watcher lists tools no child can be given: schedule_list (${ROOT_ONLY}); gerp (unknown tool, did you mean grep?); the child gets the rest (grep)`,
  );
  const none = { name: 'alarm', tools: ['schedule_create', 'structured_output'] };
  assert.equal(
    unreachableToolsNote(none, unreachableTools(none, entries)),
    `agent type alarm lists a tool no child can be given: schedule_create (${ROOT_ONLY}); the child has NO usable tools at all`,
  );
});

test('the catalog: a tool no child gets unless some other declaration of it gives children it too', () => {
  const tools = catalog();
  const object = { type: 'object' };
  const byName = () => new Map(tools.entries().map((entry) => [entry.name, entry]));
  assert.equal(byName().get('schedule_list')?.notForChildren, ROOT_ONLY);
  assert.equal(byName().get('read_file')?.notForChildren, undefined);
  const undo = tools.declare([{ name: 'schedule_list', parameters: object }]);
  assert.equal(byName().get('schedule_list')?.notForChildren, undefined, 'also given to children');
  undo();
  assert.equal(byName().get('schedule_list')?.notForChildren, ROOT_ONLY);
  const again = tools.declare([{ name: 'bash', parameters: object }], { notForChildren: 'x' });
  assert.equal(byName().get('bash')?.notForChildren, undefined, 'its first declaration gives it');
  again();
});
