import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LoomError } from '../../src/base/errors.js';
import { Context } from '../../src/core/context.js';
import { createAgent } from '../../src/core/create-agent.js';
import { storePrompt } from '../../src/core/prompt-store.js';
import {
  hasPromptBlob,
  promptBlob,
  promptHash,
  requestPromptOf,
} from '../../src/core/request-prompt.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { SystemPrompt } from '../../src/core/system-prompt.js';
import type { JsonSchema } from '../../src/llm/contract.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { echoTool } from '../helpers/echo-tool.js';
import { requestPrompts } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { agentFixture } from './agent-fixture.js';

const model = {
  rules: [
    {
      when: 'go',
      steps: [{ tools: [{ name: 'echo', arguments: { text: 'x' } }] }, { reply: 'ok' }],
    },
  ],
};

type Line = { type: string; seq: number; time: number; data: Record<string, unknown> };

test('a prompt is hashed by its content and logged once per distinct content', () => {
  const tools = [{ name: 'a', description: 'A', parameters: { type: 'object' } }];
  const hash = promptHash({ system: 'S', tools });
  assert.match(hash, /^[0-9a-f]{32}$/);
  assert.equal(promptHash({ system: 'S', tools: structuredClone(tools) }), hash);
  assert.notEqual(promptHash({ system: 'S2', tools }), hash);
  assert.notEqual(promptHash({ system: 'S', tools: [] }), hash);

  const events: SessionEvent[] = [];
  assert.equal(hasPromptBlob(events, hash), false);
  events.push({ type: 'prompt/blob', seq: 1, time: 0, data: { hash, system: 'S', tools } });
  assert.equal(hasPromptBlob(events, hash), true, 'a blob appended later is seen');
  assert.equal(hasPromptBlob(events, promptHash({ system: 'S2', tools })), false);
});

test('a header naming a prompt no blob holds is SESSION_CORRUPT, naming the hash', () => {
  const header = { turnId: 't1', step: 2, model: 'm', prompt: 'abc123' };
  assert.throws(
    () => requestPromptOf([], header),
    (error: unknown) =>
      error instanceof LoomError &&
      error.code === 'SESSION_CORRUPT' &&
      /turn t1 step 2 names prompt abc123/.test(error.message),
  );
});

test('a session whose headers carry the prompt inline (older format) loads, resolves, and continues with blobs', async () => {
  const handle = agentFixture({ model, tools: [echoTool] });
  await handle.agent.prompt('go');
  const path = handle.log.path;
  const [before] = requestPrompts(handle.log.events);
  assert.ok(before);
  handle.close();

  // Rewrite the file as Loom wrote it before prompt blobs: no blob, the prompt in each header.
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
  const old = lines
    .filter((line) => line.type !== 'prompt/blob')
    .map((line) => {
      if (line.type !== 'request/header') return line;
      const { prompt: _prompt, ...rest } = line.data;
      return { ...line, data: { ...rest, system: before.system, tools: before.tools } };
    });
  assert.ok(old.length < lines.length && old.some((line) => line.type === 'request/header'));
  writeFileSync(path, `${old.map((line) => JSON.stringify(line)).join('\n')}\n`);

  const loaded = loadSessionFile(path);
  const inline = requestPrompts(loaded.events);
  assert.equal(inline.length, 2);
  for (const request of inline) {
    assert.equal('prompt' in request.header, false);
    assert.equal(request.system, before.system);
    assert.deepEqual(request.tools, before.tools);
  }
  assert.deepEqual(checkSessionInvariants(loaded.events), []);

  const continued = createAgent({
    home: handle.home,
    sessionId: handle.log.header.sessionId,
    model: createScriptedModel(model, { name: 'test' }),
    cwd: handle.home,
    tools: [echoTool],
    root: new Context(),
  });
  await continued.agent.prompt('go');
  continued.close();
  const after = loadSessionFile(path).events;
  const requests = requestPrompts(after);
  assert.equal(requests.length, 4);
  const [, , third, fourth] = requests;
  assert.ok(third && fourth && 'prompt' in third.header && 'prompt' in fourth.header);
  assert.equal(third.system, before.system);
  assert.deepEqual(third.tools, before.tools);
  assert.equal(after.filter((event) => event.type === 'prompt/blob').length, 1);
  assert.deepEqual(checkSessionInvariants(after), []);
});

test('agents sending the same prompt share one parsed blob, equal to what their files reload', async () => {
  const first = agentFixture({ model, tools: [echoTool] });
  const second = createAgent({
    home: first.home,
    model: createScriptedModel(model, { name: 'test' }),
    cwd: first.home,
    tools: [echoTool],
    root: new Context(),
  });
  await first.agent.prompt('go');
  await second.agent.prompt('go');
  const blobOf = (events: readonly SessionEvent[]) =>
    events.find((event) => event.type === 'prompt/blob');
  const [one, two] = [blobOf(first.log.events), blobOf(second.log.events)];
  assert.ok(one && two);
  assert.equal(one.data, two.data, 'the second agent reuses the first one’s parsed blob');
  assert.ok(Object.isFrozen(one.data), 'a shared blob cannot be changed through one log');
  first.close();
  second.close();
  for (const handle of [first, second]) {
    assert.ok(handle.log.events.some((event) => event.type === 'request/header'));
    const reloaded = loadSessionFile(handle.log.path).events;
    assert.deepEqual(reloaded, handle.log.events, 'memory equals what a reload gives');
    assert.deepEqual(checkSessionInvariants(reloaded), []);
  }
});

test('a prompt whose tools are not the shared frozen schemas is hashed from its content each time', () => {
  const tools = [{ name: 'a', description: 'A', parameters: { type: 'object' } }];
  const blob = promptBlob({ system: 'S', tools });
  assert.equal(blob.hash, promptHash({ system: 'S', tools }));
  assert.equal(blob.json, JSON.stringify(blob.data));
  tools[0] = { name: 'a', description: 'A', parameters: { type: 'string' } };
  const changed = promptBlob({ system: 'S', tools });
  assert.notEqual(changed.hash, blob.hash);
  assert.deepEqual(changed.data.tools, tools);
});

test('a prompt kept in the store is written once, named by prompt/stored, and read back checked', () => {
  const folder = temporaryFolder('loom-prompt-store-');
  const tools = [{ name: 'a', description: 'A', parameters: { type: 'object' } }];
  const blob = promptBlob({ system: 'stored S', tools });
  const reference = storePrompt(folder, blob);
  assert.deepEqual(
    reference,
    { hash: blob.hash },
    'the log names the hash; the file follows from it',
  );
  assert.deepEqual(storePrompt(folder, blob), reference, 'a second session reuses the file');
  const file = join(folder, 'prompts', `${blob.hash}.json`);
  assert.equal(readFileSync(file, 'utf8'), blob.json);

  const events: SessionEvent[] = [{ type: 'prompt/stored', seq: 1, time: 0, data: reference }];
  assert.equal(hasPromptBlob(events, blob.hash), true);
  const header = { turnId: 't1', step: 1, model: 'm', prompt: blob.hash };
  assert.deepEqual(requestPromptOf(events, header, folder), { system: 'stored S', tools });
  const corrupt = (pattern: RegExp) => (error: unknown) =>
    error instanceof LoomError && error.code === 'SESSION_CORRUPT' && pattern.test(error.message);
  assert.throws(() => requestPromptOf(events, header), corrupt(/give the session file's folder/));
  assert.throws(
    () => requestPromptOf(events, header, temporaryFolder('loom-prompt-store-')),
    corrupt(/cannot be read/),
  );
  writeFileSync(file, JSON.stringify({ ...blob.data, hash: 'other' }));
  assert.throws(() => requestPromptOf(events, header, folder), corrupt(/holds other, not/));
});

test("a stored prompt is found by its hash alone: an older log's file is not followed, and a hash that is a path is refused", () => {
  const folder = temporaryFolder('loom-prompt-store-');
  const blob = promptBlob({ system: 'by hash', tools: [] });
  storePrompt(folder, blob);
  writeFileSync(
    join(folder, 'elsewhere.json'),
    JSON.stringify({ ...blob.data, system: 'elsewhere' }),
  );
  const header = { turnId: 't1', step: 1, model: 'm', prompt: blob.hash };
  const older = { hash: blob.hash, file: 'elsewhere.json' };
  const events: SessionEvent[] = [{ type: 'prompt/stored', seq: 1, time: 0, data: older }];
  assert.equal(requestPromptOf(events, header, folder).system, 'by hash');

  const crafted = { ...header, prompt: '../elsewhere' };
  const craftedEvents: SessionEvent[] = [
    { type: 'prompt/stored', seq: 1, time: 0, data: { hash: '../elsewhere' } },
  ];
  assert.throws(
    () => requestPromptOf(craftedEvents, crafted, folder),
    (error: unknown) =>
      error instanceof LoomError &&
      error.code === 'SESSION_CORRUPT' &&
      /"\.\.\/elsewhere" is not a prompt hash/.test(error.message),
  );
});

test('the blob of an assembled prompt follows its content: a changed description, schema or system is a new blob', async () => {
  const parameters = { type: 'object', properties: { path: { type: 'string' } } };
  const blobOf = async (system: string, description: string, schema: JsonSchema = parameters) => {
    const prompt = new SystemPrompt({ context: new Context() });
    prompt.section({ id: 'system', order: 0, text: system });
    const assembled = await prompt.assemble([{ name: 'read', description, parameters: schema }]);
    return promptBlob(assembled);
  };
  const first = await blobOf('S', 'reads');
  assert.equal(await blobOf('S', 'reads'), first, 'the same content reuses the blob');
  const cases = [
    await blobOf('S', 'reads a file'),
    await blobOf('S2', 'reads'),
    await blobOf('S', 'reads', { type: 'object' }),
  ];
  for (const blob of cases) {
    assert.notEqual(blob.hash, first.hash);
    assert.equal(blob.hash, promptHash(blob.data), 'the hash names what the blob holds');
    assert.equal(blob.json, JSON.stringify(blob.data));
  }
  assert.equal(cases[0]?.data.tools[0]?.description, 'reads a file');
  assert.equal(cases[1]?.data.system, 'S2');
  assert.deepEqual(cases[2]?.data.tools[0]?.parameters, { type: 'object' });
  assert.equal((await blobOf('S', 'reads')).hash, first.hash);
});

test('sessions of one folder share one frozen prompt/stored reference; another folder gets its own file', () => {
  const tools = [{ name: 'a', description: 'A', parameters: { type: 'object' } }];
  const blob = promptBlob({ system: 'shared reference', tools });
  const [one, two] = [temporaryFolder('loom-prompt-store-'), temporaryFolder('loom-prompt-store-')];
  const reference = storePrompt(one, blob);
  assert.equal(storePrompt(one, blob), reference, 'no new object a session');
  assert.ok(Object.isFrozen(reference));
  const other = storePrompt(two, blob);
  assert.deepEqual(other, reference);
  assert.equal(readFileSync(join(two, 'prompts', `${other.hash}.json`), 'utf8'), blob.json);
  const changed = promptBlob({ system: 'another reference', tools });
  assert.equal(storePrompt(one, changed).hash, changed.hash);
  const changedFile = join(one, 'prompts', `${storePrompt(one, changed).hash}.json`);
  assert.equal(readFileSync(changedFile, 'utf8'), changed.json);
});
