/**
 * The start-time check of `agent()` calls written with literal options: unknown names (with the
 * closest known one), bad literal values, agent types the service does not know, schemas that
 * are not JSON Schema; what is not written literally is left to the call. It never evaluates.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentTypes } from '../../src/project/agent-types-contract.js';
import { checkAgentCalls } from '../../src/workflow/agent-call-check.js';
import { WorkflowError } from '../../src/workflow/contract.js';
import { fakeAgentTypes } from '../helpers/fake-agent-types.js';

function refusal(script: string, agentTypes?: AgentTypes): WorkflowError {
  try {
    checkAgentCalls(script, agentTypes ? { agentTypes } : {});
  } catch (error) {
    assert.ok(error instanceof WorkflowError, String(error));
    return error;
  }
  assert.fail(`expected a refusal of: ${script}`);
}

test('a misspelled option is UNSUPPORTED_OPTION naming the closest one, its line and column', () => {
  const error = refusal(`const a = 1;\nawait agent('review', { label: 'r', efort: 'high' });`);
  assert.equal(error.code, 'UNSUPPORTED_OPTION');
  assert.match(error.message, /agent\(\) has no option "efort" \(did you mean effort\?\)/);
  assert.match(error.message, /\(at 2:37\)/);
  assert.match(error.message, /2 \| await agent\('review', \{ label: 'r', efort: 'high' \}\);/);
  const quoted = refusal(`agent('x', { 'agent_type': 'Explore' })`);
  assert.match(quoted.message, /no option "agent_type" \(did you mean agentType\?\)/);
});

test('bad literal values are INVALID_ARGUMENT; every problem is listed', () => {
  const error = refusal(`
    await agent('a', { effort: 'extreme' });
    await agent('b', { isolation: 'copy', timeoutMs: -5 });
    await agent('c', { label: '' , model: 7 });`);
  assert.equal(error.code, 'INVALID_ARGUMENT');
  assert.match(
    error.message,
    /effort must be one of low, medium, high, max, not "extreme" \(at 2:32\)/,
  );
  assert.match(error.message, /isolation must be "worktree" .*not "copy"/);
  assert.match(error.message, /timeoutMs must be a positive whole number .* not -5/);
  assert.match(error.message, /label must be a non-empty string, not an empty string/);
  assert.match(error.message, /model must be a non-empty string, not a number/);
  const template = refusal('agent(`x`, { effort: `hi` })');
  assert.match(template.message, /not "hi" \(did you mean high\?\)/);
});

test('the first problem gives the code: an unknown option before a bad value', () => {
  const error = refusal(`agent('a', { effort: 'x' }); agent('b', { efort: 'low' });`);
  assert.equal(error.code, 'INVALID_ARGUMENT');
  assert.match(
    error.message,
    /effort must be one of[^\n]*\n[^\n]*\n[^\n]*\nagent\(\) has no option "efort"/,
  );
});

test('an agent type the service does not know is refused naming the known ones', () => {
  const types = fakeAgentTypes([{ name: 'reviewer' }, { name: 'Explore' }]);
  const error = refusal(`agent('x', { agentType: 'reveiwer' })`, types);
  assert.equal(error.code, 'INVALID_ARGUMENT');
  assert.match(error.message, /names no agent type "reveiwer" \(known: Explore, reviewer\)/);
  assert.doesNotThrow(() =>
    checkAgentCalls(`agent('x', { agentType: 'reviewer' })`, { agentTypes: types }),
  );
  // Without the service the name is checked when the call runs.
  assert.doesNotThrow(() => checkAgentCalls(`agent('x', { agentType: 'reveiwer' })`));
});

test('a schema written literally must be a JSON Schema; anyOf and type lists are', () => {
  const error = refusal(
    `agent('x', { schema: { type: 'object', properties: { n: { type: 'nummber' } } } })`,
  );
  assert.equal(error.code, 'UNSUPPORTED_SCHEMA');
  assert.match(
    error.message,
    /agent\(\) option schema cannot be used[\s\S]*schema\.properties\.n\.type/,
  );
  const notObject = refusal(`agent('x', { schema: ['string'] })`);
  assert.match(notObject.message, /schema: must be a schema object, got an array/);
  assert.doesNotThrow(() =>
    checkAgentCalls(`agent('x', { schema: {
      type: 'object',
      properties: {
        verdict: { anyOf: [{ type: 'string', enum: ['ok', 'bad'] }, { type: 'null' }] },
        line: { type: ['integer', 'null'], minimum: 1 },
        tags: { type: 'array', items: { $ref: '#/$defs/tag' } },
      },
      required: ['verdict'],
      $defs: { tag: { type: 'string', pattern: '^[a-z]+$' } },
    } })`),
  );
});

test('what is not written literally is left alone, and nothing is evaluated', () => {
  const script = `
    const effort = args.effort;
    const options = { efort: 'high' };
    await agent('a', options);
    await agent('b', { effort, ...options, [key]: 1, label: \`for \${item}\` });
    await agent('c', { schema: { type: makeType() } });
    await other('d', { efort: 'high' });
    await agent('e');
    globalThis.crash();`;
  assert.deepEqual(checkAgentCalls(script), { worktree: false, agentType: false });
});

test('the summary says whether a call asks for a worktree or names an agent type', () => {
  assert.deepEqual(
    checkAgentCalls(`await agent('a', { isolation: 'worktree' }); agent('b', { agentType: 'x' })`),
    { worktree: true, agentType: true },
  );
});

test('calls inside functions, combinators and nested expressions are found', () => {
  const error = refusal(`
    const results = await parallel(files.map((file) => () => agent(file, { lable: file })));
    return { first: await pipeline(results, (r) => agent(r, { phaze: 'x' })) };`);
  assert.match(error.message, /no option "lable" \(did you mean label\?\)/);
  assert.match(error.message, /no option "phaze" \(did you mean phase\?\)/);
});

test('a body that does not parse passes: the parse check reports it', () => {
  assert.deepEqual(checkAgentCalls('return (;'), { worktree: false, agentType: false });
});
