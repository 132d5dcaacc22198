import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { BlobStore, blobsFolder } from '../../src/core/blob-store.js';
import { Context } from '../../src/core/context.js';
import { withImagesResolved } from '../../src/core/image-view.js';
import { deriveMessages } from '../../src/core/messages.js';
import { requestPromptOf } from '../../src/core/request-prompt.js';
import { AgentRuntime } from '../../src/core/runtime.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import type { ModelClient, ModelRequest } from '../../src/llm/contract.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedRule } from '../../src/llm/scripted-rules.js';
import { installSubagents } from '../../src/subagent/install.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { WorkerWorkflowService } from '../../src/workflow/host.js';
import { sessions } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { testMeta } from './engine-fixture.js';

const AGENTS = 50;

/** What a request sends, as one JSON text: the same shape for the seam and the rebuild. */
const requestText = (request: Pick<ModelRequest, 'system' | 'tools' | 'messages'>) =>
  JSON.stringify({ system: request.system, tools: request.tools, messages: request.messages });

/** The scripted model behind a seam that keeps, as JSON text, every request it is handed. */
function recordingModel(rules?: ScriptedRule[]): { model: ModelClient; seen: string[] } {
  const inner = createScriptedModel(
    {
      // The reading children read an image each, which the requests carry with its bytes.
      images: true,
      rules: rules ?? [
        { when: '^summarise (.*)$', reply: 'summary of {{1}}' },
        { when: '^rate (.*)$', output: { score: 4, item: '{{1}}' } },
        {
          when: '^read (.*)$',
          steps: [
            { tools: [{ name: 'read_file', arguments: { path: '{{1}}.png' } }] },
            { reply: 'read: {{lastToolResult}}' },
          ],
        },
      ],
    },
    { name: 'rebuild', recordCalls: false },
  );
  const seen: string[] = [];
  const model: ModelClient = {
    id: inner.id,
    limits: { images: true },
    stream(request) {
      seen.push(requestText(request));
      return inner.stream(request);
    },
  };
  return { model, seen };
}

/**
 * Every request a session file describes, rebuilt from its events, the prompt store they name,
 * and the blob store that holds the images they refer to.
 */
function rebuiltRequests(
  events: readonly SessionEvent[],
  sessionFolder: string,
  blobs: BlobStore,
): string[] {
  const rebuilt: string[] = [];
  events.forEach((event, index) => {
    if (event.type !== 'request/header') return;
    const header = event.data as SessionEvent<'request/header'>['data'];
    const { system, tools } = requestPromptOf(events, header, sessionFolder);
    const messages = withImagesResolved(deriveMessages(events.slice(0, index + 1)), {
      takesImages: true,
      blobs,
      owner: 'the rebuild',
    });
    rebuilt.push(requestText({ system, tools, messages }));
  });
  return rebuilt;
}

test('every request of a 50-agent run, images included, is rebuilt byte for byte from the session files and the blob store', async () => {
  const { model, seen } = recordingModel();
  const home = temporaryFolder('loom-rebuild-');
  // One image per reading child (index 2, 5, 8, …), each of its own size.
  for (let index = 2; index < AGENTS; index += 3) {
    const image = await sharp({
      create: { width: index + 1, height: 3, channels: 3, background: '#204080' },
    })
      .png()
      .toBuffer();
    writeFileSync(join(home, `item${index}.png`), image);
  }
  const root = new Context();
  const runtime = new AgentRuntime({ root, home, cwd: home, resolveModel: () => model });
  runtime.offerTools([readFileTool({ workspace: { root: home, extraRoots: [] } })]);
  const layer = installSubagents(runtime);
  const service = new WorkerWorkflowService({
    context: root,
    registry: layer.services.registry,
    limits: { maxConcurrentAgents: 8 },
  });
  try {
    const run = service.start({
      meta: testMeta,
      parent: { sessionId: null, delegationDepth: 0 },
      script: `
        const schema = {
          type: 'object',
          properties: { score: { type: 'integer' }, item: { type: 'string' } },
          required: ['score', 'item'],
        };
        return await parallel(Array.from({ length: ${AGENTS} }, (_, index) => () =>
          index % 3 === 0
            ? agent('summarise item ' + index)
            : index % 3 === 1
              ? agent('rate item ' + index, { label: 'rate ' + index, schema })
              : agent('read item' + index)));`,
    });
    const result = await run.result;
    assert.equal(result.stopReason, 'completed', JSON.stringify(result.error));
    assert.equal(result.agentsStarted, AGENTS);
  } finally {
    layer.dispose();
  }

  const loaded = sessions(home);
  assert.equal(loaded.length, AGENTS, 'one session file per child');
  const rebuilt: string[] = [];
  for (const session of loaded) {
    assert.deepEqual(checkSessionInvariants(session.events), []);
    const prompts = session.events.filter((event) => event.type === 'prompt/stored');
    assert.equal(prompts.length, 1, 'a child names its prompt once, however many steps it takes');
    rebuilt.push(
      ...rebuiltRequests(session.events, join(home, 'sessions'), new BlobStore(blobsFolder(home))),
    );
  }
  // The 16 reading children take two steps (a tool call, then the answer): 66 requests.
  assert.equal(seen.length, AGENTS + 16);
  assert.equal(new Set(seen).size, seen.length, 'every request differs from every other');
  assert.ok(
    seen.some((text) => text.includes('"role":"tool"')),
    'some requests carry tool results',
  );
  assert.equal(
    seen.filter((text) => text.includes('"images":[{"type":"image","mediaType":"image/png"'))
      .length,
    16,
    'each reading child sent its image',
  );
  assert.ok(
    loaded.every((session) => !JSON.stringify(session.events).includes('"data":"iVBOR')),
    'no session holds an image inline',
  );
  assert.deepEqual(rebuilt.sort(), [...seen].sort());
});

/** Two tools a turn rarely needs: offered by name until loaded. */
const rareTools: ToolDefinition[] = [
  {
    name: 'rare_echo',
    description: 'Echo a text back. It is rarely needed.',
    deferral: 'rare',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
    execute: ({ text }: { text: string }) => `echo: ${text}`,
  },
  {
    name: 'rare_count',
    description: 'Count to three.',
    deferral: 'rare',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    execute: () => '1 2 3',
  },
];

/** Loads rare_echo with load_tools and calls it, then calls rare_count unloaded (which loads it). */
const loadingRules: ScriptedRule[] = [
  {
    when: '^load (.*)$',
    steps: [
      { tools: [{ name: 'load_tools', arguments: { names: ['rare_echo'] } }] },
      { tools: [{ name: 'rare_echo', arguments: { text: '{{1}}' } }] },
      { tools: [{ name: 'rare_count', arguments: {} }] },
      { reply: 'done {{1}}: {{lastToolResult}}' },
    ],
  },
  { when: '^again$', reply: 'again' },
];

test('requests that loaded tools mid-turn are rebuilt byte for byte from the log, across a resume and in workflow children', async () => {
  const { model, seen } = recordingModel(loadingRules);
  const home = temporaryFolder('loom-rebuild-loaded-');
  const makeRuntime = () => {
    const runtime = new AgentRuntime({
      root: new Context(),
      home,
      cwd: home,
      resolveModel: () => model,
    });
    runtime.offerTools(rareTools);
    return runtime;
  };
  const first = makeRuntime();
  const handle = first.start();
  const sessionId = handle.log.header.sessionId;
  assert.equal((await handle.agent.prompt('load root')).reason, 'completed');
  handle.close();
  await handle.agent.whenIdle();
  // A new runtime resumes the session from its file: the loaded tools stay loaded.
  const resumed = makeRuntime().resume(sessionId);
  assert.equal((await resumed.agent.prompt('again')).reason, 'completed');
  resumed.close();
  await resumed.agent.whenIdle();

  const runtime = makeRuntime();
  const layer = installSubagents(runtime);
  const service = new WorkerWorkflowService({
    context: runtime.root,
    registry: layer.services.registry,
    limits: { maxConcurrentAgents: 4 },
  });
  try {
    const run = service.start({
      meta: testMeta,
      parent: { sessionId: null, delegationDepth: 0 },
      script: `return await parallel(Array.from({ length: 6 }, (_, index) => () => agent('load child ' + index)));`,
    });
    const result = await run.result;
    assert.equal(result.stopReason, 'completed', JSON.stringify(result.error));
  } finally {
    layer.dispose();
  }

  const loaded = sessions(home);
  assert.equal(loaded.length, 7, 'the root session and six children');
  const rebuilt: string[] = [];
  for (const session of loaded) {
    assert.deepEqual(checkSessionInvariants(session.events), []);
    const loads = session.events.filter((event) => event.type === 'tools/loaded');
    assert.deepEqual(
      loads.map((event) => (event.data as { names: string[] }).names),
      [['rare_echo'], ['rare_count']],
    );
    rebuilt.push(
      ...rebuiltRequests(session.events, join(home, 'sessions'), new BlobStore(blobsFolder(home))),
    );
  }
  // Four requests a loading turn (root and six children), one for the resumed turn.
  assert.equal(seen.length, 7 * 4 + 1);
  const root = loaded.find((session) => session.header.sessionId === sessionId);
  const rootTools = rebuiltRequests(
    root?.events ?? [],
    join(home, 'sessions'),
    new BlobStore(blobsFolder(home)),
  ).map((text) =>
    (JSON.parse(text) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name),
  );
  assert.deepEqual(
    rootTools.map((tools) => tools.filter((name) => name.startsWith('rare_'))),
    [[], ['rare_echo'], ['rare_echo'], ['rare_echo', 'rare_count'], ['rare_echo', 'rare_count']],
    'a schema appears the request after its load, and the resumed turn keeps both',
  );
  assert.deepEqual(rebuilt.sort(), [...seen].sort());
});
