/**
 * `loom workflow run --provider NAME` with an ACP agent that is not Loom, through bin/loom: the
 * run's model choice (`--model`, `LOOM_MODEL`, config) is only the default of children naming
 * none, so the foreign agent gets no model and every agent runs; an `agent(p, {model})` aimed at
 * it is refused naming the model; the run's model key is not needed, since no child uses it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom } from './loom-process.js';
import { parseResult, writeFile, writeJson } from './workflow-fixture.js';

const fakeAgent = fileURLToPath(
  new URL('../subagent/fixtures/fake-acp-agent.mjs', import.meta.url),
);

const TWO = `export const meta = { name: 'two', description: 'two agents on a foreign agent' };
return await parallel(['one', 'two'].map((word) => () => agent('say ' + word, { label: word })));
`;

const EXPLICIT = `export const meta = { name: 'explicit', description: 'one agent names a model' };
const plain = await agent('say plain', { label: 'plain' });
const named = await agent('say named', { label: 'named', model: 'openai:gpt-4o' });
return { plain, named };
`;

function foreignHome(): { home: string; model: string } {
  const home = temporaryFolder();
  writeFileSync(
    join(home, 'config.yaml'),
    `subagents:\n  providers:\n    fake:\n      type: acp\n      command: ${JSON.stringify(process.execPath)}\n      args: [${JSON.stringify(fakeAgent)}]\n`,
  );
  const model = `scripted:${writeJson(home, 'model.json', { default: { reply: 'scripted' } })}`;
  return { home, model };
}

const quietEnvironment = { DEEPSEEK_API_KEY: '', LOOM_MODEL: '' };

test('workflow run --provider FOREIGN --model SPEC: the flag is the default of the children, so the foreign agent chooses its own model and every agent completes', async () => {
  const { home, model } = foreignHome();
  const script = writeFile(home, 'two.js', TWO);
  const run = await runLoom(
    ['workflow', 'run', script, '--provider', 'fake', '--model', model, '--json'],
    { home, cwd: home, env: quietEnvironment },
  );
  assert.equal(run.code, 0, run.stderr);
  const result = parseResult(run);
  assert.deepEqual(result.failures, []);
  const value = result.value as string[];
  assert.equal(value.length, 2);
  assert.match(value[0] ?? '', /say one$/, 'the fake agent echoed its prompt');
  assert.match(value[1] ?? '', /say two$/);
  assert.doesNotMatch(run.stderr, /chooses its own model/);
});

test('workflow run --provider FOREIGN: the run model from LOOM_MODEL needs no key, since no child runs it', async () => {
  const { home } = foreignHome();
  const script = writeFile(home, 'two.js', TWO);
  const run = await runLoom(['workflow', 'run', script, '--provider', 'fake', '--json'], {
    home,
    cwd: home,
    env: { ...quietEnvironment, LOOM_MODEL: 'openai:gpt-4o-mini', OPENAI_API_KEY: '' },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(parseResult(run).failures, []);
});

test('workflow run --provider FOREIGN: only an agent() that names a model is refused (AGENT_START, naming the model); the one naming none ran', async () => {
  const { home, model } = foreignHome();
  const script = writeFile(home, 'explicit.js', EXPLICIT);
  const run = await runLoom(
    ['workflow', 'run', script, '--provider', 'fake', '--model', model, '--json'],
    { home, cwd: home, env: quietEnvironment },
  );
  assert.equal(run.code, 1, run.stderr);
  const result = parseResult(run);
  assert.equal(result.code, 'AGENT_START');
  assert.match(
    String(result.error),
    /agent "named" could not start: subagent provider fake runs .*, which chooses its own model; it cannot take model openai:gpt-4o/,
  );
  assert.deepEqual(
    (result.agents as Array<{ label: string; outcome: string }>).map(({ label, outcome }) => [
      label,
      outcome,
    ]),
    [['plain', 'completed']],
  );
});
