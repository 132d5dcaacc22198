import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { installPermissionRules } from '../../src/config/permissions.js';
import type { PermissionRule } from '../../src/config/schema.js';
import { Context } from '../../src/core/context.js';
import { type PermissionAsker, permissionAskerKey } from '../../src/core/tool-execution.js';
import { answerPermission } from '../../src/subagent/acp-permissions.js';

function request(toolCall: RequestPermissionRequest['toolCall']): RequestPermissionRequest {
  return {
    sessionId: 'remote-1',
    toolCall,
    options: [
      { optionId: 'always', name: 'Always', kind: 'allow_always' },
      { optionId: 'once', name: 'Allow', kind: 'allow_once' },
      { optionId: 'no', name: 'Reject', kind: 'reject_once' },
    ],
  };
}

function scope(rules: PermissionRule[], asker?: PermissionAsker) {
  const context = new Context();
  installPermissionRules(context, rules);
  if (asker) context.provide(permissionAskerKey, asker);
  return {
    context,
    agentId: 'child-session',
    turnId: 'turn-1',
    signal: new AbortController().signal,
  };
}

const rmCall = {
  toolCallId: 'call-1',
  title: 'bash rm -rf build',
  kind: 'execute' as const,
  rawInput: { command: 'rm -rf build' },
};

test('acp permissions: a parent allow rule picks the one-time allow option', async () => {
  const answer = await answerPermission(
    scope([{ tool: 'bash', match: { command: 'rm *' }, action: 'allow' }]),
    request(rmCall),
  );
  assert.deepEqual(answer.outcome, { outcome: 'selected', optionId: 'once' });
});

test('acp permissions: a parent deny rule rejects without asking anyone', async () => {
  let asked = false;
  const answer = await answerPermission(
    scope([{ tool: 'bash', match: { command: 'rm *' }, action: 'deny' }], {
      ask: async () => {
        asked = true;
        return true;
      },
    }),
    request(rmCall),
  );
  assert.deepEqual(answer.outcome, { outcome: 'selected', optionId: 'no' });
  assert.equal(asked, false);
});

test('acp permissions: ask, or no rule, asks the person at the root with the remote call', async () => {
  const seen: Array<{ name: string; arguments: unknown; reason: string }> = [];
  const asker: PermissionAsker = {
    ask: async ({ call, reason }) => {
      seen.push({ name: call.name, arguments: call.arguments, reason });
      return call.name === 'bash';
    },
  };
  const ruled = await answerPermission(
    scope([{ tool: 'bash', action: 'ask', reason: 'shell needs a person' }], asker),
    request(rmCall),
  );
  assert.deepEqual(ruled.outcome, { outcome: 'selected', optionId: 'once' });
  // An agent that names its tool (`name`) is matched by it; this one is refused by the person.
  const unruled = await answerPermission(
    scope([], asker),
    request({ toolCallId: 'call-2', name: 'Write', title: 'Write a.txt', kind: 'edit' }),
  );
  assert.deepEqual(unruled.outcome, { outcome: 'selected', optionId: 'no' });
  assert.deepEqual(
    seen.map((entry) => entry.name),
    ['bash', 'Write'],
  );
  assert.deepEqual(seen[0]?.arguments, { command: 'rm -rf build' });
  assert.match(seen[0]?.reason ?? '', /shell needs a person/);
});

test('acp permissions: with nobody to ask, an ask is refused; without a reject option, cancelled', async () => {
  const refused = await answerPermission(scope([]), request(rmCall));
  assert.deepEqual(refused.outcome, { outcome: 'selected', optionId: 'no' });
  const onlyAllow = await answerPermission(scope([]), {
    ...request(rmCall),
    options: [{ optionId: 'once', name: 'Allow', kind: 'allow_once' }],
  });
  assert.deepEqual(onlyAllow.outcome, { outcome: 'cancelled' });
});
