import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { AgentHandle } from '../../src/core/create-agent.js';
import type { SubagentRun } from '../../src/subagent/contract.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { subagentCall } from '../helpers/scripted-turns.js';
import { requestPrompts } from '../helpers/session-files.js';
import { eventsOf, gateTool, type SubagentFixture, subagentFixture } from './subagent-fixture.js';

const model = {
  rules: [
    {
      when: '^delegate (.*)',
      steps: [
        { tools: [subagentCall('helper', '{{1}}')] },
        { reply: 'parent got: {{lastToolResult}}' },
      ],
    },
    {
      when: 'fan out',
      steps: [
        { tools: [1, 2, 3, 4, 5, 6].map((n) => subagentCall(`job ${n}`, `job ${n}`)) },
        { reply: 'all done' },
      ],
    },
    {
      when: '^job (\\d)$',
      steps: [
        { tools: [{ name: 'gate', arguments: { key: '{{1}}' } }] },
        { reply: 'answer {{1}}' },
      ],
    },
    {
      when: 'start in background',
      steps: [
        { tools: [subagentCall('bg job', 'bg task', { run_in_background: true })] },
        { reply: 'started: {{lastToolResult}}' },
      ],
    },
    {
      when: '^(bg|slow) task$',
      steps: [
        { tools: [{ name: 'gate', arguments: { key: '{{1}}' } }] },
        { reply: '{{1}} answer' },
      ],
    },
    { when: '^broken task$', error: 'upstream 500: overloaded' },
    { when: '^hang task$', hang: true as const },
    {
      when: '^tell (\\S+): (.*)$',
      steps: [
        {
          tools: [{ name: 'send_message', arguments: { subagent_id: '{{1}}', message: '{{2}}' } }],
        },
        { reply: 'sent: {{lastToolResult}}' },
      ],
    },
    {
      when: '^message and interrupt (\\S+)$',
      steps: [
        {
          tools: [
            {
              name: 'send_message',
              arguments: { subagent_id: '{{1}}', message: 'after the interrupt' },
            },
            { name: 'interrupt_agent', arguments: { agent_id: '{{1}}' } },
          ],
        },
        { reply: 'interrupted' },
      ],
    },
    {
      when: '^list them$',
      steps: [{ tools: [{ name: 'list_agents' }] }, { reply: 'listed' }],
    },
    {
      when: '^report task$',
      steps: [
        { tools: [{ name: 'report', arguments: { output: 'halfway there' } }] },
        { tools: [{ name: 'gate', arguments: { key: 'report' } }] },
        { reply: 'report child done' },
      ],
    },
    {
      when: '^quiet task$',
      steps: [
        { tools: [{ name: 'report', arguments: { output: 'quiet note', wake: false } }] },
        { tools: [{ name: 'gate', arguments: { key: 'quiet' } }] },
        { reply: 'quiet child done' },
      ],
    },
  ],
  default: { reply: 'ok: {{prompt}}' },
};

function setup() {
  const gate = gateTool();
  const fixture = subagentFixture({ model, tools: [gate.tool] });
  return { fixture, gate };
}

/** A continuable child of the fixture's root, started through the registry. */
function backgroundChild(fixture: SubagentFixture, prompt: string, description = prompt) {
  return fixture.services.registry.start('spawn', {
    parent: { sessionId: fixture.rootId, delegationDepth: 0 },
    prompt,
    description,
    continuable: true,
  });
}

const userMessages = (handle: AgentHandle | { log: { events: AgentHandle['log']['events'] } }) =>
  eventsOf(handle.log.events, 'user/message');

test("subagent in the foreground returns the child's final text", async () => {
  const { fixture } = setup();
  const outcome = await fixture.root.agent.prompt('delegate summarise the repo');
  assert.equal(outcome.reason, 'completed');
  assert.equal(outcome.text, 'parent got: ok: summarise the repo');
  const [result] = eventsOf(fixture.root.log.events, 'tool/result');
  assert.equal(result?.isError, false);
  assert.equal(fixture.starts[0]?.description, 'helper');
  assert.equal(fixture.ends[0]?.stopReason, 'completed');
  assert.equal(fixture.runtime.liveAgents.length, 1, 'the one-shot child was closed');
  assert.deepEqual(checkSessionInvariants(fixture.root.log.events), []);
  await fixture.close();
});

test("a failing child is an error result and the parent's turn goes on", async () => {
  const { fixture } = setup();
  const outcome = await fixture.root.agent.prompt('delegate broken task');
  assert.equal(outcome.reason, 'completed');
  const [result] = eventsOf(fixture.root.log.events, 'tool/result');
  assert.equal(result?.isError, true);
  assert.match(result?.content ?? '', /did not complete \(error\): upstream 500: overloaded/);
  assert.match(outcome.text, /^parent got: The subagent \S+ did not complete/);
  await fixture.close();
});

test('cancelling the parent cancels its foreground child', async () => {
  const { fixture } = setup();
  const outcome = fixture.root.agent.prompt('delegate hang task');
  await fixture.model.waitForRequest(/^hang task$/);
  fixture.root.agent.cancel('stop');
  assert.equal((await outcome).reason, 'aborted');
  const end = await fixture.waitForEnd(() => true);
  assert.equal(end.stopReason, 'cancelled');
  assert.deepEqual(fixture.model.aborts, ['delegate hang task', 'hang task'], 'parent first');
  await fixture.close();
});

test('six subagent calls in one step run concurrently; results commit in model order', async () => {
  const { fixture, gate } = setup();
  const outcome = fixture.root.agent.prompt('fan out');
  const keys = ['1', '2', '3', '4', '5', '6'];
  // All six children are inside the gate at once: none can leave before the test opens it.
  await Promise.all(keys.map((key) => gate.arrived(key)));
  assert.equal(fixture.starts.length, 6);
  assert.equal(fixture.ends.length, 0);
  for (const key of [...keys].reverse()) {
    gate.open(key);
    await fixture.waitForEnd((event) => event.description === `job ${key}`);
  }
  assert.equal((await outcome).text, 'all done');
  assert.deepEqual(
    fixture.ends.map((event) => event.description),
    ['job 6', 'job 5', 'job 4', 'job 3', 'job 2', 'job 1'],
  );
  const events = fixture.root.log.events;
  const calls = eventsOf(events, 'tool/call');
  const results = eventsOf(events, 'tool/result');
  assert.deepEqual(
    results.map((result) => result.callId),
    calls.map((call) => call.callId),
  );
  assert.deepEqual(
    results.map((result) => result.content),
    keys.map((key) => `answer ${key}`),
  );
  assert.deepEqual(checkSessionInvariants(events), []);
  await fixture.close();
});

test('run_in_background returns the id at once; the notice wakes the idle parent', async () => {
  const { fixture, gate } = setup();
  const { root, services } = fixture;
  const outcome = await root.agent.prompt('start in background');
  const id = /Started subagent (\S+) \(bg job\)/.exec(outcome.text)?.[1];
  assert.ok(id, outcome.text);
  await gate.arrived('bg');
  assert.equal(root.agent.status, 'idle');
  assert.equal(fixture.runtime.find(id)?.agent.status, 'running');
  assert.equal(services.children.runningUnder(fixture.rootId), 1);

  gate.open('bg');
  await services.children.whenSettled(root);
  const messages = userMessages(root);
  assert.equal(messages.length, 2);
  const notice = messages[1];
  assert.equal(notice?.delivery, 'followup');
  assert.match(notice?.text ?? '', new RegExp(`^\\[subagent ${id} \\(bg job\\) finished\\]`));
  assert.match(notice?.text ?? '', /bg answer/);
  const turnEnds = eventsOf(root.log.events, 'turn/end');
  assert.deepEqual(
    turnEnds.map((end) => end.reason),
    ['completed', 'completed'],
  );
  assert.equal(fixture.runtime.find(id)?.agent.status, 'idle', 'the child lives on, idle');
  await fixture.close();
});

test('send_message to a running child queues it for its next turn', async () => {
  const { fixture, gate } = setup();
  const { root, services } = fixture;
  const run = backgroundChild(fixture, 'slow task');
  await gate.arrived('slow');
  const child = fixture.runtime.find(run.id);
  assert.ok(child);

  const outcome = await root.agent.prompt(`tell ${run.id}: extra info`);
  assert.match(outcome.text, new RegExp(`Message queued for subagent ${run.id} \\(running\\)`));
  assert.equal(child.agent.inbox.followup, 1);
  assert.deepEqual(
    userMessages(child).map((message) => message.text),
    ['slow task'],
    'nothing joined the running turn',
  );

  gate.open('slow');
  await services.children.whenSettled(root);
  const turns = eventsOf(child.log.events, 'turn/start').map((turn) => turn.turnId);
  const messages = userMessages(child);
  assert.equal(turns.length, 2);
  assert.deepEqual(
    messages.map((message) => [message.turnId, message.text, message.delivery]),
    [
      [turns[0], 'slow task', 'followup'],
      [turns[1], 'extra info', 'followup'],
    ],
  );
  assert.equal(eventsOf(child.log.events, 'assistant/message').at(-1)?.text, 'ok: extra info');
  await fixture.close();
});

test('send_message to a settled child wakes it and its answer reaches the parent', async () => {
  const { fixture } = setup();
  const { root, services } = fixture;
  const run = backgroundChild(fixture, 'quick task');
  assert.equal((await run.result).output, 'ok: quick task');
  await services.children.whenSettled(root);
  assert.equal(fixture.runtime.find(run.id)?.agent.status, 'idle');

  await root.agent.prompt(`tell ${run.id}: wake up`);
  await services.children.whenSettled(root);
  const child = fixture.runtime.find(run.id);
  assert.equal(eventsOf(child?.log.events ?? [], 'turn/start').length, 2);
  const notices = userMessages(root).filter((message) => message.text.startsWith('[subagent'));
  assert.equal(notices.length, 2);
  assert.match(notices[1]?.text ?? '', /ok: wake up/);
  await fixture.close();
});

test('send_message from an agent that is not the parent is refused (NOT_AUTHORIZED)', async () => {
  const { fixture } = setup();
  const run = backgroundChild(fixture, 'quick task');
  await run.result;
  await fixture.services.children.whenSettled(fixture.root);
  const stranger = fixture.runtime.start();
  const outcome = await stranger.agent.prompt(`tell ${run.id}: do my bidding`);
  assert.equal(outcome.reason, 'completed');
  const [result] = eventsOf(stranger.log.events, 'tool/result');
  assert.equal(result?.isError, true);
  assert.equal(result?.errorCode, 'NOT_AUTHORIZED');
  assert.match(result?.content ?? '', /only the direct parent/);
  const child = fixture.runtime.find(run.id);
  assert.equal(child?.agent.status, 'idle');
  assert.equal(child?.agent.inbox.followup, 0);
  assert.equal(eventsOf(child?.log.events ?? [], 'turn/start').length, 1);
  await fixture.close();
});

test("interrupt_agent cancels the child's turn but keeps its queued messages", async () => {
  const { fixture } = setup();
  const { root, services } = fixture;
  const run = backgroundChild(fixture, 'hang task');
  await fixture.model.waitForRequest(/^hang task$/);

  const outcome = await root.agent.prompt(`message and interrupt ${run.id}`);
  assert.equal(outcome.text, 'interrupted');
  const results = eventsOf(root.log.events, 'tool/result').map((result) => result.content);
  assert.match(results[0] ?? '', /Message queued/);
  assert.match(results[1] ?? '', new RegExp(`Interrupt sent to ${run.id}`));

  const first = await run.result;
  assert.equal(first.stopReason, 'cancelled');
  await services.children.whenSettled(root);
  const child = fixture.runtime.find(run.id);
  assert.ok(child, 'an interrupted child is not stopped for good');
  assert.deepEqual(
    eventsOf(child.log.events, 'turn/end').map((end) => end.reason),
    ['aborted', 'completed'],
  );
  assert.equal(userMessages(child).at(-1)?.text, 'after the interrupt');
  assert.deepEqual(checkSessionInvariants(child.log.events), []);
  await fixture.close();
});

test('list_agents lists the caller’s background children with their state', async () => {
  const { fixture, gate } = setup();
  const { root, services } = fixture;
  await root.agent.prompt('list them');
  assert.equal(
    eventsOf(root.log.events, 'tool/result')[0]?.content,
    'You have no background subagents.',
  );

  const quick = backgroundChild(fixture, 'quick task', 'quick one');
  await quick.result;
  const slow = backgroundChild(fixture, 'slow task', 'slow one');
  await gate.arrived('slow');
  await root.agent.prompt('list them');
  const listing = eventsOf(root.log.events, 'tool/result').at(-1)?.content ?? '';
  const lines = listing.split('\n');
  assert.equal(lines.length, 2, listing);
  assert.ok(lines.includes(`${quick.id}  idle (last turn: completed)  quick one`), listing);
  assert.ok(lines.includes(`${slow.id}  running  slow one`), listing);

  gate.open('slow');
  await services.children.whenSettled(root);
  await fixture.close();
});

test('report is offered only to continuable children', async () => {
  const { fixture } = setup();
  const oneShot = fixture.services.registry.start('spawn', {
    parent: { sessionId: fixture.rootId, delegationDepth: 0 },
    prompt: 'one shot',
  });
  await oneShot.result;
  const continuable = backgroundChild(fixture, 'keep me');
  await continuable.result;
  await fixture.services.children.whenSettled(fixture.root);
  const toolsOf = (id: string) =>
    requestPrompts(fixture.load(id).events, join(fixture.home, 'sessions'))[0]?.tools;
  const names = (id: string) => toolsOf(id)?.map((tool) => tool.name) ?? [];
  assert.ok(!names(oneShot.id).includes('report'));
  assert.ok(names(continuable.id).includes('report'));
  assert.ok(!names(fixture.rootId).includes('report'));
  assert.ok(names(fixture.rootId).includes('subagent'));
  await fixture.close();
});

test('report wakes the parent with a follow-up while the child works on', async () => {
  const { fixture, gate } = setup();
  const { root, services } = fixture;
  const run: SubagentRun = backgroundChild(fixture, 'report task');
  await gate.arrived('report');
  await root.agent.whenIdle();
  const [report] = userMessages(root);
  assert.equal(report?.delivery, 'followup');
  assert.equal(report?.text, `[report from subagent ${run.id}]\nhalfway there`);
  assert.equal(fixture.runtime.find(run.id)?.agent.status, 'running');

  gate.open('report');
  await services.children.whenSettled(root);
  assert.equal((await run.result).output, 'report child done');
  await fixture.close();
});

test('report with wake false joins the parent’s next turn without waking it', async () => {
  const { fixture, gate } = setup();
  const { root, services } = fixture;
  const run = backgroundChild(fixture, 'quiet task');
  await gate.arrived('quiet');
  // The report returned before the child went on to the gate; a wake would have set the parent
  // running at once (agent.followup changes the status synchronously).
  assert.equal(root.agent.status, 'idle');
  assert.deepEqual(root.agent.inbox, { followup: 0, steer: 0, inject: 1 });
  assert.equal(root.log.events.length, 0, 'the parent did not start a turn');

  gate.open('quiet');
  await services.children.whenSettled(root);
  const messages = userMessages(root);
  assert.deepEqual(
    messages.map((message) => message.delivery),
    ['inject', 'followup'],
  );
  assert.equal(messages[0]?.turnId, messages[1]?.turnId, 'both joined one turn');
  assert.equal(messages[0]?.text, `[report from subagent ${run.id}]\nquiet note`);
  assert.match(messages[1]?.text ?? '', /quiet child done/);
  await fixture.close();
});

const subagentSpec = (handle: AgentHandle) => {
  const header = requestPrompts(handle.log.events, dirname(handle.log.path)).at(-1);
  const spec = header?.tools.find((tool) => tool.name === 'subagent');
  assert.ok(spec, 'the subagent tool was offered');
  const prompt = (spec.parameters as { properties: { prompt: { description: string } } }).properties
    .prompt.description;
  return { description: spec.description, prompt };
};

test('under spawn the subagent tool promises a fresh context', async () => {
  const { fixture } = setup();
  await fixture.root.agent.prompt('delegate count the files');
  const spec = subagentSpec(fixture.root);
  assert.match(spec.description, /a fresh context/);
  assert.match(spec.prompt, /The subagent has not seen this conversation/);
  const [result] = eventsOf(fixture.root.log.events, 'tool/result');
  assert.equal(result?.content, 'ok: count the files');
  await fixture.close();
});

test("under fork the subagent tool and its results say the child has seen this session's completed turns", async () => {
  const gate = gateTool();
  const fixture = subagentFixture({
    model,
    tools: [gate.tool],
    layer: { defaultProvider: 'fork' },
  });
  const { root } = fixture;
  await root.agent.prompt('first question');
  await root.agent.prompt('delegate count the files');
  const spec = subagentSpec(root);
  assert.doesNotMatch(spec.description, /fresh context/);
  assert.match(spec.description, /it has seen this session's completed turns/);
  assert.doesNotMatch(spec.prompt, /has not seen this conversation/);
  assert.match(
    spec.prompt,
    /The subagent has seen this session's completed turns but not the current one/,
  );

  const [foreground] = eventsOf(root.log.events, 'tool/result');
  const childId = fixture.starts[0]?.runId;
  assert.equal(
    foreground?.content,
    `[forked subagent ${childId}; it has seen this session's 1 completed turn, not the current one]\nok: count the files`,
  );
  const child = fixture.load(childId ?? '');
  assert.deepEqual(
    eventsOf(child.events, 'user/message').map((message) => message.text),
    ['first question', 'count the files'],
    'what the result says is what the child saw',
  );

  await root.agent.prompt('start in background');
  const background = eventsOf(root.log.events, 'tool/result').at(-1);
  const backgroundId = fixture.starts[1]?.runId;
  assert.equal(
    background?.content,
    `Started subagent ${backgroundId} (bg job) in the background; it has seen this session's 2 completed turns, not the current one. Its answer will arrive as a message; use send_message with subagent_id "${backgroundId}" to add instructions.`,
  );
  await gate.arrived('bg');
  gate.open('bg');
  await fixture.services.children.whenSettled(root);
  await fixture.close();
});
