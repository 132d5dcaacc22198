import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventsOf, gateTool, type SubagentFixture, subagentFixture } from './subagent-fixture.js';

const backgroundCall = (prompt: string) => ({
  name: 'subagent',
  arguments: { description: prompt, prompt, run_in_background: true },
});

const model = {
  rules: [
    {
      when: '^gated task$',
      steps: [{ tools: [{ name: 'gate', arguments: { key: 'g' } }] }, { reply: 'gated done' }],
    },
    {
      when: '^spawn and hang$',
      steps: [{ tools: [backgroundCall('child hang')] }, { hang: true as const }],
    },
    {
      when: '^child hang$',
      steps: [{ tools: [backgroundCall('grandchild hang')] }, { hang: true as const }],
    },
    { when: '^grandchild hang$', hang: true as const },
  ],
  default: { reply: 'ok: {{prompt}}' },
};

function continuableChild(fixture: SubagentFixture, parent: string, depth: number, prompt: string) {
  return fixture.services.registry.start('spawn', {
    parent: { sessionId: parent, delegationDepth: depth },
    prompt,
    continuable: true,
  });
}

/**
 * The positive signal that a pending `whenSettled` had its chance: the same call on an agent with
 * no children, made later, has resolved (it takes the same steps up to the children check).
 */
async function settledControl(fixture: SubagentFixture): Promise<void> {
  const idle = fixture.runtime.start();
  await fixture.services.children.whenSettled(idle);
  idle.close();
}

test('whenSettled(parent) does not resolve while a background child runs', async () => {
  const gate = gateTool();
  const fixture = subagentFixture({ model, tools: [gate.tool] });
  const { root, services } = fixture;
  const run = continuableChild(fixture, fixture.rootId, 0, 'gated task');
  let settled = false;
  const waiting = services.children.whenSettled(root).then(() => {
    settled = true;
  });
  await gate.arrived('g');
  await settledControl(fixture);
  assert.equal(root.agent.status, 'idle', 'the parent itself is idle');
  assert.equal(settled, false, 'but it owns a running child');
  assert.equal(services.children.runningUnder(fixture.rootId), 1);

  gate.open('g');
  await waiting;
  assert.equal(settled, true);
  assert.equal(services.children.runningUnder(fixture.rootId), 0);
  assert.equal(fixture.runtime.find(run.id)?.agent.status, 'idle');
  assert.match(eventsOf(root.log.events, 'user/message')[0]?.text ?? '', /gated done/);
  await fixture.close();
});

test('whenSettled counts grandchildren too', async () => {
  const gate = gateTool();
  const fixture = subagentFixture({ model, tools: [gate.tool] });
  const { services } = fixture;
  const child = continuableChild(fixture, fixture.rootId, 0, 'quick');
  await child.result;
  const grandchild = continuableChild(fixture, child.id, 1, 'gated task');
  await gate.arrived('g');
  assert.equal(services.children.runningUnder(fixture.rootId), 1);
  let settled = false;
  const waiting = services.children.whenSettled(fixture.root).then(() => {
    settled = true;
  });
  await settledControl(fixture);
  assert.equal(settled, false);
  gate.open('g');
  await waiting;
  assert.equal((await grandchild.result).output, 'gated done');
  await fixture.close();
});

test('cancelTree cancels the parent first, then its children and theirs', async () => {
  const fixture = subagentFixture({ model });
  const { root, services, model: recorder } = fixture;
  const first = root.agent.prompt('spawn and hang');
  await recorder.waitForRequest(/^spawn and hang$/, 2);
  await recorder.waitForRequest(/^child hang$/, 2);
  await recorder.waitForRequest(/^grandchild hang$/);
  assert.equal(services.children.runningUnder(fixture.rootId), 2);

  services.children.cancelTree(fixture.rootId, 'interrupted by the user');
  assert.equal((await first).reason, 'aborted');
  await services.children.whenSettled(root);
  assert.deepEqual(
    [...new Set(recorder.aborts)],
    ['spawn and hang', 'child hang', 'grandchild hang'],
    'top-down',
  );
  const [child] = services.children.childrenOf(fixture.rootId);
  const [grandchild] = services.children.childrenOf(child?.id ?? '');
  const firstTurnEnd = (id: string) => eventsOf(fixture.load(id).events, 'turn/end')[0]?.reason;
  assert.equal(firstTurnEnd(fixture.rootId), 'aborted');
  assert.equal(firstTurnEnd(child?.id ?? ''), 'aborted');
  assert.equal(firstTurnEnd(grandchild?.id ?? ''), 'aborted');
  assert.equal(services.children.runningUnder(fixture.rootId), 0);
  await fixture.close();
});

test('after cancelTree no agent of the tree starts another turn', async () => {
  const fixture = subagentFixture({ model });
  const { root, services, model: recorder } = fixture;
  const first = root.agent.prompt('spawn and hang');
  await recorder.waitForRequest(/^child hang$/, 2);
  await recorder.waitForRequest(/^grandchild hang$/);
  services.children.cancelTree(fixture.rootId, 'interrupted by the user');
  await first;
  await services.children.whenSettled(root);
  const turns = (id: string) => eventsOf(fixture.load(id).events, 'turn/start').length;
  const [child] = services.children.childrenOf(fixture.rootId);
  const requestsAfterCancel = recorder.calls.filter((request) =>
    request.prompt.startsWith('[subagent'),
  );
  await fixture.close();
  assert.deepEqual(
    requestsAfterCancel.map((request) => request.prompt.split('\n')[0]),
    [],
    'model requests made after the user interrupted the tree',
  );
  assert.equal(turns(fixture.rootId), 1);
  assert.equal(turns(child?.id ?? ''), 1);
});

test('releaseUnder closes the descendants deepest first and leaves the parent open', async () => {
  const fixture = subagentFixture({ model });
  const { runtime, services } = fixture;
  const child = continuableChild(fixture, fixture.rootId, 0, 'child');
  await child.result;
  const grandchild = continuableChild(fixture, child.id, 1, 'grandchild');
  await grandchild.result;
  await services.children.whenSettled(fixture.root);
  const closed: string[] = [];
  const childHandle = runtime.find(child.id);
  const grandchildHandle = runtime.find(grandchild.id);
  childHandle?.onClose(() => closed.push('child'));
  grandchildHandle?.onClose(() => closed.push('grandchild'));

  services.children.releaseUnder(fixture.rootId);
  assert.deepEqual(closed, ['grandchild', 'child']);
  assert.equal(runtime.find(child.id), undefined);
  assert.equal(runtime.find(grandchild.id), undefined);
  assert.equal(childHandle?.log.closed, true);
  assert.equal(grandchildHandle?.log.closed, true);
  assert.equal(services.children.childrenOf(fixture.rootId)[0]?.state, 'stopped');
  assert.equal(services.children.childrenOf(child.id)[0]?.state, 'stopped');
  assert.equal(runtime.find(fixture.rootId), fixture.root, 'the caller closes the parent');
  await fixture.close();
});

test('releasing a running child cancels it; its turn still ends in its log', async () => {
  const fixture = subagentFixture({ model });
  const run = continuableChild(fixture, fixture.rootId, 0, 'grandchild hang');
  await fixture.model.waitForRequest(/^grandchild hang$/);
  const handle = fixture.runtime.find(run.id);
  fixture.services.children.releaseUnder(fixture.rootId);
  assert.equal((await run.result).stopReason, 'cancelled');
  await handle?.agent.whenIdle();
  assert.equal(handle?.log.closed, true);
  assert.deepEqual(
    eventsOf(fixture.load(run.id).events, 'turn/end').map((end) => end.reason),
    ['aborted'],
  );
  await fixture.close();
});
