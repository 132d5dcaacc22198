/**
 * The terminal's interaction broker: an approval waits as a pending request; "yes, always" adds
 * a session rule (announced once) that answers the same call at once, a bash command compared
 * exactly, never as a pattern; "no" carries the reason to the model; a new session asks again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PermissionRule } from '../../src/config/schema.js';
import type { ToolCallRequest } from '../../src/core/tool-execution.js';
import { describeRule, InteractionBroker } from '../../src/tui/interaction-broker.js';

function callOf(name: string, args: unknown): ToolCallRequest {
  return { callId: 'c1', name, arguments: args, agentId: 's1', turnId: 't1' } as ToolCallRequest;
}

function ask(broker: InteractionBroker, name: string, args: unknown, signal?: AbortSignal) {
  return broker.asker.ask({
    call: callOf(name, args),
    reason: `${name} asks`,
    signal: signal ?? new AbortController().signal,
  });
}

function pendingApproval(broker: InteractionBroker) {
  const request = broker.current;
  assert.equal(request?.kind, 'approval');
  return request as Extract<typeof request & object, { kind: 'approval' }>;
}

test('"yes, always" adds one session rule for that exact command line and announces it', async () => {
  const broker = new InteractionBroker();
  const added: PermissionRule[] = [];
  broker.onRuleAdded((rule) => added.push(rule));
  const first = ask(broker, 'bash', { command: 'rm  build/*' });
  const request = pendingApproval(broker);
  assert.equal(request.tool, 'bash');
  request.resolve({ decision: 'always' });
  assert.equal(await first, true);
  assert.equal(broker.current, undefined);
  assert.deepEqual(added, [{ tool: 'bash', action: 'allow', match: { command: 'rm build/*' } }]);
  assert.equal(describeRule(added[0] as PermissionRule), 'bash `rm build/*`');

  assert.equal(await ask(broker, 'bash', { command: 'rm build/*' }), true, 'not asked again');
  const other = ask(broker, 'bash', { command: 'rm build/a' });
  const again = pendingApproval(broker);
  assert.equal(again.arguments && (again.arguments as { command: string }).command, 'rm build/a');
  again.resolve({ decision: 'always' });
  assert.equal(await other, true, 'the * of an approved command is no pattern');
  assert.equal(added.length, 2);
});

test('"yes, always" for another tool allows every call of it; once allows only this one', async () => {
  const broker = new InteractionBroker();
  const once = ask(broker, 'write_file', { path: 'a.txt', content: 'x' });
  pendingApproval(broker).resolve({ decision: 'once' });
  assert.equal(await once, true);
  const always = ask(broker, 'write_file', { path: 'b.txt', content: 'y' });
  pendingApproval(broker).resolve({ decision: 'always' });
  assert.equal(await always, true);
  assert.equal(await ask(broker, 'write_file', { path: 'c.txt', content: 'z' }), true);
  assert.equal(describeRule(broker.rules[0] as PermissionRule), 'every write_file call');
});

test('"no" carries the reason for the model; answering twice changes nothing', async () => {
  const broker = new InteractionBroker();
  const answer = ask(broker, 'bash', { command: 'make deploy' });
  const request = pendingApproval(broker);
  request.resolve({ decision: 'no', reason: 'deploy on Fridays only' });
  request.resolve({ decision: 'always' });
  assert.deepEqual(await answer, { approved: false, feedback: 'deploy on Fridays only' });
  assert.deepEqual(broker.rules, []);
});

test('a new session forgets the rules; a cancelled ask leaves the queue', async () => {
  const broker = new InteractionBroker();
  const first = ask(broker, 'bash', { command: 'ls' });
  pendingApproval(broker).resolve({ decision: 'always' });
  await first;
  broker.clearRules();
  const controller = new AbortController();
  const second = ask(broker, 'bash', { command: 'ls' }, controller.signal);
  pendingApproval(broker);
  controller.abort(new Error('turn cancelled'));
  await assert.rejects(second, /turn cancelled/);
  assert.equal(broker.current, undefined);
});
