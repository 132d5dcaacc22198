/**
 * `subagent {agent_type}` over the scripted model: the type's prompt becomes the child's persona,
 * its tool list hides every other tool, its model and effort reach the request, an unknown type
 * fails before anything starts, and a provider that cannot take a persona refuses it by name.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import { installAgentTypes } from '../../src/project/agent-types-install.js';
import type { SubagentProvider, SubagentStartRequest } from '../../src/subagent/contract.js';
import { writeTree } from '../helpers/file-tree.js';
import { subagentCall } from '../helpers/scripted-turns.js';
import { requestPrompts, toolResults } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { echoTool, type SubagentFixture, subagentFixture } from './subagent-fixture.js';

const REVIEWER = [
  '---',
  'name: reviewer',
  'description: Reviews a change and lists what is wrong',
  'tools: Read, Grep',
  'model: scripted:reviewer-model',
  'effort: high',
  '---',
  'You are Quill, a strict code reviewer.',
  '',
].join('\n');

const model = {
  rules: [
    {
      when: '^delegate as (\\S+) via (\\S+)$',
      steps: [
        {
          tools: [
            subagentCall('a review', 'check the change', {
              agent_type: '{{1}}',
              provider: '{{2}}',
            }),
          ],
        },
        { reply: 'parent got: {{lastToolResult}}' },
      ],
    },
    {
      when: '^delegate plainly via (\\S+)$',
      steps: [
        { tools: [subagentCall('a task', 'plain task', { provider: '{{1}}' })] },
        { reply: 'parent got: {{lastToolResult}}' },
      ],
    },
    {
      when: '^check the change$',
      steps: [
        { tools: [{ name: 'echo', arguments: { text: 'x' } }] },
        { reply: 'child saw: {{lastToolResult}}' },
      ],
    },
  ],
  default: { reply: 'ok: {{prompt}}' },
};

/** A fixture whose workspace (and LOOM_HOME) holds `files`, with agent types installed first. */
function fixtureWith(files: Record<string, string>): SubagentFixture {
  const home = temporaryFolder('loom-agent-types-');
  writeTree(home, files);
  return subagentFixture({
    model,
    home,
    tools: [echoTool, readFileStandIn],
    before: (runtime) => installAgentTypes(runtime),
  });
}

/** A `read_file` of the fixture's own (the fixture offers no built-in tools). */
const readFileStandIn: ToolDefinition = {
  name: 'read_file',
  description: 'Reads a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
  execute: () => 'contents',
};

/** A provider that records each request and answers at once. */
function recorder(requests: SubagentStartRequest[], persona = true): SubagentProvider {
  return {
    name: persona ? 'recorder' : 'no-persona',
    capabilities: {
      outputSchema: true,
      depthLimit: true,
      toolFilter: true,
      persona,
      workspace: false,
      inheritsParentContext: false,
      activity: false,
    },
    start(request) {
      requests.push(request);
      const result = Promise.resolve({
        output: 'recorded',
        stopReason: 'completed' as const,
        sessionId: 'recorded-child',
        usage: { input: 0, output: 0 },
      });
      return { id: 'recorded-child', result, cancel() {}, dispose() {} };
    },
  };
}

/** The root's prompt that delegates `check the change` to a child of `type` through `provider`. */
function delegate(type: string, provider = 'spawn'): string {
  return `delegate as ${type} via ${provider}`;
}

test("agent_type: the type's prompt is the child's persona and its tools are the only ones it sees", async () => {
  const fixture = fixtureWith({ '.claude/agents/reviewer.md': REVIEWER });
  const outcome = await fixture.root.agent.prompt(delegate('reviewer'));
  assert.equal(outcome.reason, 'completed');
  const [result] = toolResults(fixture.root.log.events, 'subagent');
  assert.equal(result?.isError, false, result?.content);
  // The fixture has no grep: the caller is told the child cannot have it, before its answer.
  assert.match(
    result?.content ?? '',
    /^\[agent type reviewer lists a tool no child can be given: grep \(unknown tool\); the child gets the rest \(read_file\)\]\nchild saw: /,
  );
  const childId = fixture.starts[0]?.runId;
  assert.ok(childId, 'a child was made');
  const childEvents = fixture.load(childId).events;
  const [header] = requestPrompts(childEvents, join(fixture.home, 'sessions'));
  assert.ok(header?.system.startsWith('You are Quill, a strict code reviewer.'), header?.system);
  assert.doesNotMatch(header?.system ?? '', /You are Loom/);
  assert.deepEqual(
    header?.tools.map((tool) => tool.name),
    ['read_file'],
    'echo, subagent and the rest are hidden (the fixture has no grep)',
  );
  const childResults = toolResults(childEvents, 'echo');
  assert.equal(childResults[0]?.errorCode, 'UNKNOWN_TOOL');
  assert.ok(fixture.root.tools.lookup('echo'), "the parent's tools are untouched");
  await fixture.close();
});

test("agent_type: the type's tool list, model and effort reach the provider's request", async () => {
  const fixture = fixtureWith({ '.claude/agents/reviewer.md': REVIEWER });
  const requests: SubagentStartRequest[] = [];
  const undo = fixture.services.registry.register(recorder(requests));
  await fixture.root.agent.prompt(delegate('reviewer', 'recorder'));
  const [request] = requests;
  assert.equal(request?.persona, 'You are Quill, a strict code reviewer.');
  assert.equal(request?.model, 'scripted:reviewer-model');
  assert.equal(request?.effort, 'high');
  assert.ok(request?.toolFilter?.includes('echo'), JSON.stringify(request?.toolFilter));
  assert.ok(request?.toolFilter?.includes('subagent'));
  for (const kept of ['read_file', 'grep', 'structured_output', 'report']) {
    assert.equal(request?.toolFilter?.includes(kept), false, kept);
  }
  undo();
  await fixture.close();
});

test('without agent_type the child is general-purpose: no persona, no filter; a general-purpose file redefines it', async () => {
  const plain = fixtureWith({});
  const requests: SubagentStartRequest[] = [];
  const undo = plain.services.registry.register(recorder(requests));
  await plain.root.agent.prompt('delegate plainly via recorder');
  assert.deepEqual(
    [requests[0]?.persona, requests[0]?.toolFilter, requests[0]?.model],
    [undefined, undefined, undefined],
  );
  undo();
  await plain.close();

  const redefined = fixtureWith({
    '.loom/agents/general-purpose.md':
      '---\ndescription: our default\ntools: [read_file]\n---\nYou are our default.\n',
  });
  const seen: SubagentStartRequest[] = [];
  redefined.services.registry.register(recorder(seen));
  await redefined.root.agent.prompt('delegate plainly via recorder');
  assert.equal(seen[0]?.persona, 'You are our default.');
  assert.ok(seen[0]?.toolFilter?.includes('echo'));
  await redefined.close();
});

test('the built-in Explore sees read_file, glob and grep only', async () => {
  const fixture = fixtureWith({});
  const requests: SubagentStartRequest[] = [];
  fixture.services.registry.register(recorder(requests));
  await fixture.root.agent.prompt(delegate('Explore', 'recorder'));
  const hidden = requests[0]?.toolFilter ?? [];
  for (const name of ['bash', 'write_file', 'edit_file', 'echo', 'subagent']) {
    if (fixture.root.tools.lookup(name)) assert.ok(hidden.includes(name), name);
  }
  assert.ok(hidden.includes('echo'));
  for (const name of ['read_file', 'glob', 'grep']) assert.equal(hidden.includes(name), false);
  assert.match(requests[0]?.persona ?? '', /only read and search/);
  await fixture.close();
});

test('an unknown agent_type fails at once naming the known types; no child starts', async () => {
  const fixture = fixtureWith({ '.claude/agents/reviewer.md': REVIEWER });
  await fixture.root.agent.prompt(delegate('revewer'));
  const [result] = toolResults(fixture.root.log.events, 'subagent');
  assert.equal(result?.isError, true);
  assert.equal(result?.errorCode, 'UNKNOWN_AGENT_TYPE');
  assert.equal(
    result?.content,
    'no agent type named revewer; the known agent types are Explore, general-purpose, Plan, reviewer',
  );
  assert.equal(fixture.starts.length, 0);
  await fixture.close();
});

test("a malformed file's type fails naming the file and its problem", async () => {
  const fixture = fixtureWith({
    '.claude/agents/reviewer.md': '---\nname: reviewer\neffort: huge\n---\nbody\n',
  });
  await fixture.root.agent.prompt(delegate('reviewer'));
  const [result] = toolResults(fixture.root.log.events, 'subagent');
  assert.equal(result?.errorCode, 'UNKNOWN_AGENT_TYPE');
  assert.match(
    result?.content ?? '',
    /^no agent type named reviewer: \S+\/\.claude\/agents\/reviewer\.md is malformed \(description: missing .*effort: must be low, medium, high or max \(got "huge"\)\); the known agent types are Explore, general-purpose, Plan$/,
  );
  assert.equal(fixture.starts.length, 0);
  await fixture.close();
});

test('a provider that cannot take a persona refuses a typed child by name', async () => {
  const fixture = fixtureWith({ '.claude/agents/reviewer.md': REVIEWER });
  const requests: SubagentStartRequest[] = [];
  fixture.services.registry.register(recorder(requests, false));
  await fixture.root.agent.prompt(delegate('reviewer', 'no-persona'));
  const [result] = toolResults(fixture.root.log.events, 'subagent');
  assert.equal(result?.errorCode, 'UNSUPPORTED_CAPABILITY');
  assert.match(result?.content ?? '', /subagent provider no-persona does not support persona/);
  assert.equal(requests.length, 0);
  await fixture.close();
});

test("the subagent tool's description lists every agent type with its description", async () => {
  const fixture = fixtureWith({ '.claude/agents/reviewer.md': REVIEWER });
  const description = fixture.root.tools.lookup('subagent')?.description ?? '';
  assert.match(description, /\nAgent types \(agent_type; default general-purpose\):\n/);
  assert.match(description, /\n- reviewer: Reviews a change and lists what is wrong(\n|$)/);
  assert.match(description, /\n- Explore: Read-only and quick/);
  assert.match(description, /\n- Plan: Read-only: /);
  assert.match(description, /\n- general-purpose: The default/);
  await fixture.close();
});

test("a type naming only a root-only tool: the child still starts, and the caller's result says it has no usable tools", async () => {
  const fixture = fixtureWith({
    '.claude/agents/alarm.md':
      '---\nname: alarm\ndescription: Sets alarms\ntools: [schedule_list, echo]\n---\nBeep.\n',
    '.claude/agents/quiet.md':
      '---\nname: quiet\ndescription: Lists alarms\ntools: [schedule_list]\n---\nHush.\n',
  });
  // Declared as the schedule layer declares its tools: for root agents only.
  const undeclare = fixture.runtime.toolCatalog.declare(
    [{ name: 'schedule_list', parameters: { type: 'object' } }],
    { notForChildren: 'only root agents get it' },
  );
  await fixture.root.agent.prompt(delegate('alarm'));
  await fixture.root.agent.prompt(delegate('quiet'));
  const [alarm, quiet] = toolResults(fixture.root.log.events, 'subagent');
  assert.equal(alarm?.isError, false, alarm?.content);
  assert.equal(
    alarm?.content,
    '[agent type alarm lists a tool no child can be given: schedule_list (only root agents get it); the child gets the rest (echo)]\nchild saw: echo: x',
  );
  assert.match(
    quiet?.content ?? '',
    /^\[agent type quiet lists a tool no child can be given: schedule_list \(only root agents get it\); the child has NO usable tools at all\]\nchild saw: Unknown tool "echo"/,
  );
  assert.equal(fixture.starts.length, 2, 'both children started');
  undeclare();
  await fixture.close();
});
