/**
 * Claude Code's further `agent()` options on the engine (run on both engines by `npm run
 * test:unit`): `effort` reaches the child's start and its agent-end says what became of it;
 * `agentType` gives the child its type's persona, tools, model and effort unless the call names
 * its own; `isolation: 'worktree'` runs the child in its own git worktree and names the branch;
 * and options written literally are refused before any agent starts.
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agentTypesKey } from '../../src/project/agent-types-contract.js';
import { WorkflowError } from '../../src/workflow/contract.js';
import { fakeAgentTypes } from '../helpers/fake-agent-types.js';
import { gitRepository, isolatedGitEnvironment } from '../helpers/git-repository.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { echoPrompt, engineFixture, settled } from './engine-fixture.js';

Object.assign(process.env, isolatedGitEnvironment());

const TOOLS = ['bash', 'grep', 'read_file', 'structured_output', 'workflow', 'write_file'];

function startRefusal(action: () => unknown): WorkflowError {
  try {
    action();
  } catch (error) {
    assert.ok(error instanceof WorkflowError, String(error));
    return error;
  }
  assert.fail('the run started');
}

test('effort reaches the child, and its agent-end says how it was sent or that it was not', async () => {
  const fixture = engineFixture({
    respond: (request) =>
      request.prompt === 'reported'
        ? {
            output: 'r',
            effort: { level: 'high', control: 'OpenAI reasoningEffort high' },
          }
        : echoPrompt(request),
  });
  const result = await settled(
    fixture,
    fixture.start(`return [
      await agent('reported', { effort: 'high' }),
      await agent('silent', { effort: 'max' }),
      await agent('none'),
    ];`),
  );
  assert.deepEqual(result.value, ['r', '<silent>', '<none>'], 'answers are unchanged');
  assert.deepEqual(
    fixture.fake.children.map((child) => child.request.effort),
    ['high', 'max', undefined],
  );
  const ends = fixture.events.of('workflow/agent-end');
  assert.deepEqual(ends[0]?.effort, { level: 'high', control: 'OpenAI reasoningEffort high' });
  assert.deepEqual(ends[1]?.effort, {
    level: 'max',
    note: 'the subagent provider fake does not pass an effort to its children: the agent ran without effort max',
  });
  assert.equal(ends[2]?.effort, undefined);
});

test('agentType gives the persona, hides the tools it does not list, and sets model and effort', async () => {
  const fixture = engineFixture({
    respond: echoPrompt,
    service: { toolNames: () => TOOLS, modelRoutes: ['own'] },
  });
  fixture.context.provide(
    agentTypesKey,
    fakeAgentTypes([
      {
        name: 'reviewer',
        prompt: 'You review code and change nothing.',
        tools: ['read_file', 'grep'],
        model: 'openai:gpt-5',
        effort: 'low',
      },
      { name: 'general-purpose' },
    ]),
  );
  const result = await settled(
    fixture,
    fixture.start(`return [
      await agent('typed', { agentType: 'reviewer' }),
      await agent('overridden', { agentType: 'reviewer', model: 'own:m', effort: 'high' }),
      await agent('plain type', { agentType: 'general-purpose' }),
    ];`),
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  const [typed, overridden, plain] = fixture.fake.children.map((child) => child.request);
  assert.equal(typed?.persona, 'You review code and change nothing.');
  assert.deepEqual(typed?.toolFilter, ['workflow', 'bash', 'write_file']);
  assert.equal(typed?.model, 'openai:gpt-5');
  assert.equal(typed?.effort, 'low');
  assert.equal(overridden?.model, 'own:m');
  assert.equal(overridden?.effort, 'high');
  assert.equal(overridden?.persona, 'You review code and change nothing.');
  assert.equal(plain?.persona, undefined, 'a type without a prompt keeps the persona');
  assert.deepEqual(
    plain?.toolFilter,
    ['workflow'],
    'a type without a tool list hides nothing more',
  );
  assert.equal(plain?.effort, undefined);
});

test('agentType naming tools the child cannot have: its agent-end notes say which and why; it still runs', async () => {
  const fixture = engineFixture({ respond: echoPrompt, service: { toolNames: () => TOOLS } });
  fixture.context.provide(
    agentTypesKey,
    fakeAgentTypes([
      { name: 'lister', tools: ['grep', 'read_fiel', 'workflow'] },
      { name: 'stranded', tools: ['schedule_list'] },
      { name: 'reader', tools: ['read_file'] },
    ]),
  );
  const result = await settled(
    fixture,
    fixture.start(`return [
      await agent('a', { agentType: 'lister' }),
      await agent('b', { agentType: 'stranded' }),
      await agent('c', { agentType: 'reader' }),
    ];`),
  );
  assert.equal(result.stopReason, 'completed', result.error?.message);
  assert.deepEqual(result.value, ['<a>', '<b>', '<c>'], 'every child ran');
  const [lister, stranded, reader] = fixture.events.of('workflow/agent-end');
  assert.deepEqual(lister?.notes, [
    "agent type lister lists tools no child can be given: read_fiel (unknown tool, did you mean read_file?); workflow (a workflow's child may not run a workflow of its own: it would escape the run's caps); the child gets the rest (grep)",
  ]);
  assert.deepEqual(stranded?.notes, [
    'agent type stranded lists a tool no child can be given: schedule_list (unknown tool); the child has NO usable tools at all',
  ]);
  assert.equal(reader?.notes, undefined, 'a type whose tools all exist has no note');
});

test('an unknown agent type fails naming the known ones: at start when literal, else at the call', async () => {
  const fixture = engineFixture({ respond: echoPrompt });
  fixture.context.provide(
    agentTypesKey,
    fakeAgentTypes([{ name: 'reviewer' }, { name: 'Explore' }]),
  );
  const literal = startRefusal(() =>
    fixture.start(`return await agent('x', { agentType: 'reveiwer' });`),
  );
  assert.equal(literal.code, 'INVALID_ARGUMENT');
  assert.match(literal.message, /names no agent type "reveiwer" \(known: Explore, reviewer\)/);
  assert.deepEqual(fixture.events.records, []);
  const computed = await settled(
    fixture,
    fixture.start(`return await agent('x', { agentType: ['rev', 'eiwer'].join('') });`),
  );
  assert.equal(computed.error?.code, 'INVALID_ARGUMENT');
  assert.match(computed.error?.message ?? '', /known: Explore, reviewer/);
  assert.equal(computed.agentsStarted, 0);
});

test('agentType where the runtime has no agent types fails at the call, starting nothing', async () => {
  const fixture = engineFixture({ respond: echoPrompt });
  const result = await settled(
    fixture,
    fixture.start(`return await agent('x', { agentType: 'reviewer' });`),
  );
  assert.equal(result.error?.code, 'INVALID_ARGUMENT');
  assert.match(result.error?.message ?? '', /this runtime has no agent types/);
  assert.equal(fixture.fake.children.length, 0);
});

test('a misspelled or bad literal option refuses the run before any agent starts', () => {
  const fixture = engineFixture({ respond: echoPrompt });
  const misspelled = startRefusal(() =>
    fixture.start(`await agent('first');\nawait agent('second', { efort: 'high' });`),
  );
  assert.equal(misspelled.code, 'UNSUPPORTED_OPTION');
  assert.match(misspelled.message, /no option "efort" \(did you mean effort\?\)[^\n]*\(at 2:25\)/);
  const badValue = startRefusal(() => fixture.start(`await agent('x', { effort: 'maximum' });`));
  assert.equal(badValue.code, 'INVALID_ARGUMENT');
  const badSchema = startRefusal(() =>
    fixture.start(`await agent('x', { schema: { type: 'obejct' } });`),
  );
  assert.equal(badSchema.code, 'UNSUPPORTED_SCHEMA');
  assert.match(
    badSchema.message,
    /agent\(\) option schema cannot be used as an output schema[\s\S]*schema\.type/,
  );
  assert.deepEqual(fixture.events.records, []);
  assert.equal(fixture.fake.children.length, 0);
});

test("isolation: 'worktree' runs the child in its own worktree and names the branch", async () => {
  const repository = gitRepository({ 'README.md': 'hello\n' });
  writeFileSync(join(repository.folder, 'draft.txt'), 'uncommitted\n');
  const fixture = engineFixture({ service: { cwd: repository.folder } });
  const run = fixture.start(
    `const answer = await agent('edit the readme', { label: 'Edit README', isolation: 'worktree' });
     return { answer, plain: await agent('plain') };`,
  );
  const child = await fixture.fake.child(/edit the readme/);
  const workspace = child.request.workspace ?? '';
  assert.notEqual(workspace, repository.folder);
  assert.ok(existsSync(join(workspace, 'draft.txt')), 'uncommitted files are there');
  writeFileSync(join(workspace, 'README.md'), 'edited in the worktree\n');
  child.answer({ output: 'edited' });
  const plain = await fixture.fake.child(/plain/);
  assert.equal(plain.request.workspace, undefined);
  plain.answer({ output: 'p' });
  const result = await settled(fixture, run);
  assert.deepEqual(result.value, { answer: 'edited', plain: 'p' });
  const branch = `loom/${run.id}/edit-readme`;
  const [end] = fixture.events.of('workflow/agent-end');
  assert.equal(end?.branch, branch);
  assert.equal(result.agents[0]?.branch, branch);
  assert.equal(result.agents[1]?.branch, undefined);
  assert.equal(repository.git('show', `${branch}:README.md`), 'edited in the worktree');
  assert.equal(repository.git('show', 'HEAD:README.md'), 'hello', 'the user branch is untouched');
  assert.equal(existsSync(workspace), false, 'the worktree folder is removed');
});

test('isolation outside a git repository is refused saying why: at start when literal', async () => {
  const plainFolder = temporaryFolder('loom-no-git-');
  const fixture = engineFixture({ respond: echoPrompt, service: { cwd: plainFolder } });
  const literal = startRefusal(() =>
    fixture.start(`return await agent('x', { isolation: 'worktree' });`),
  );
  assert.equal(literal.code, 'INVALID_ARGUMENT');
  assert.match(literal.message, /needs a git repository, and the workspace .* is not in one/);
  const computed = await settled(
    fixture,
    fixture.start(`return await agent('x', { isolation: ['work', 'tree'].join('') });`),
  );
  assert.equal(computed.error?.code, 'AGENT_START');
  assert.match(computed.error?.message ?? '', /could not start: .*needs a git repository/);
  assert.equal(computed.agentsStarted, 0);
});

test("a nested workflow file's literal options are checked as it is loaded, before its agents start", async () => {
  const root = temporaryFolder('loom-nested-options-');
  writeFileSync(
    join(root, 'inner.js'),
    `export const meta = { name: 'inner', description: 'misspells an option' };\nreturn await agent('inner', { isolaton: 'worktree' });\n`,
  );
  const fixture = engineFixture({ respond: echoPrompt, service: { cwd: root } });
  const result = await settled(
    fixture,
    fixture.start(`const first = await agent('outer');\nreturn await workflow('./inner.js');`, {
      scriptPath: join(root, 'top.js'),
    }),
  );
  assert.equal(result.error?.code, 'UNSUPPORTED_OPTION');
  assert.match(
    result.error?.message ?? '',
    /inner\.js: agent\(\) has no option "isolaton" \(did you mean isolation\?\)/,
  );
  assert.deepEqual(
    fixture.fake.children.map((child) => child.request.prompt),
    ['outer'],
  );
});
