/**
 * Images through the agent loop: a prompt's images and read_file's image result reach a model
 * that takes images as image parts with their bytes, and one that does not as a description; the
 * log keeps only blob hashes; every request is rebuilt byte for byte from the session file and
 * the blob store; a blob gone missing ends the turn with an error naming it and the session.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { BlobStore, blobStoreKey, blobsFolder, sha256Of } from '../../src/core/blob-store.js';
import { Context } from '../../src/core/context.js';
import { keepImage } from '../../src/core/image-intake.js';
import { withImagesResolved } from '../../src/core/image-view.js';
import { deriveMessages } from '../../src/core/messages.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { readFileTool } from '../../src/tools/read-file.js';
import { agentFixture } from './agent-fixture.js';

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#c03050' } })
    .png()
    .toBuffer();

const script = (images: boolean): ScriptedModelFile => ({
  images,
  rules: [
    {
      when: '^look',
      steps: [
        { tools: [{ name: 'read_file', arguments: { path: 'shot.png' } }] },
        { reply: 'seen: {{images}} | result: {{lastToolResult}}' },
      ],
    },
  ],
});

/** An agent over the scripted model with read_file, its workspace holding shot.png (12x8). */
async function imageAgent(images: boolean) {
  const root = new Context();
  const model = createScriptedModel(script(images), { name: 'images' });
  const handle = agentFixture({ model, root, tools: [] });
  handle.tools.register(readFileTool({ workspace: { root: handle.home, extraRoots: [] } }));
  const bytes = await png(12, 8);
  writeFileSync(join(handle.home, 'shot.png'), bytes);
  const store = root.find(blobStoreKey);
  assert.ok(store);
  const attached = await keepImage(store, await png(5, 3), 'pasted.png');
  return { handle, model, bytes, attached, store };
}

/** Each request of the session, rebuilt from its file and the blob store, as JSON text. */
function rebuilt(path: string, home: string, takesImages: boolean): string[] {
  const { events, header } = loadSessionFile(path);
  const blobs = new BlobStore(blobsFolder(home));
  return events.flatMap((event: SessionEvent, index) => {
    if (event.type !== 'request/header') return [];
    const messages = withImagesResolved(deriveMessages(events.slice(0, index + 1)), {
      takesImages,
      blobs,
      owner: `session ${header.sessionId}`,
    });
    return [JSON.stringify(messages)];
  });
}

test('a model that takes images gets the prompt image and the read_file image as parts; the log keeps hashes and rebuilds each request', async () => {
  const { handle, model, bytes, attached } = await imageAgent(true);
  const outcome = await handle.agent.prompt('look at this', { images: [attached] });
  handle.close();
  assert.equal(outcome.reason, 'completed', JSON.stringify(outcome));
  const sha = sha256Of;
  assert.equal(
    outcome.text,
    `seen: image/png 5x3 ${attached.bytes} bytes sha256 ${attached.blob}; image/png 12x8 ${bytes.length} bytes sha256 ${sha(bytes)} | result: Image shot.png (image/png, 12x8 pixels, ${bytes.length} bytes)`,
  );
  const last = model.calls.at(-1);
  const tool = last?.messages.find((message) => message.role === 'tool');
  assert.equal(tool?.role === 'tool' && tool.images?.[0]?.data, bytes.toString('base64'));

  const file = readFileSync(handle.log.path, 'utf8');
  assert.ok(!file.includes(bytes.toString('base64')), 'no base64 in the log');
  const results = handle.log.events.filter((event) => event.type === 'tool/result');
  assert.deepEqual((results[0]?.data as SessionEvent<'tool/result'>['data'] | undefined)?.images, [
    {
      type: 'image',
      mediaType: 'image/png',
      blob: sha(bytes),
      bytes: bytes.length,
      width: 12,
      height: 8,
    },
  ]);
  assert.deepEqual(
    rebuilt(handle.log.path, handle.home, true),
    model.calls.map((call) => JSON.stringify(call.messages)),
  );
  assert.deepEqual(checkSessionInvariants(loadSessionFile(handle.log.path).events), []);
});

test('a model that takes no images reads each image described, and the request still rebuilds', async () => {
  const { handle, model, bytes, attached } = await imageAgent(false);
  const outcome = await handle.agent.prompt('look at this', { images: [attached] });
  handle.close();
  assert.equal(outcome.reason, 'completed', JSON.stringify(outcome));
  assert.match(
    outcome.text,
    new RegExp(
      `^seen: no images \\| result: Image shot\\.png \\(image/png, 12x8 pixels, ${bytes.length} bytes\\)\\n\\[image: image/png, ${bytes.length} bytes, 12x8 pixels, sha256 [0-9a-f]{12}; this model does not take images\\]$`,
    ),
  );
  const first = model.calls[0]?.messages[0];
  assert.equal(first?.role, 'user');
  assert.ok(first?.role === 'user' && first.images === undefined);
  assert.match(
    first?.role === 'user' ? first.content : '',
    /^look at this\n\[image: image\/png, \d+ bytes, 5x3 pixels/,
  );
  assert.deepEqual(
    rebuilt(handle.log.path, handle.home, false),
    model.calls.map((call) => JSON.stringify(call.messages)),
  );
});

test('a blob gone missing ends the next turn of an image model with an error naming the blob and the session; nothing else is lost', async () => {
  const { handle, attached, store } = await imageAgent(true);
  const first = await handle.agent.prompt('look first', { images: [attached] });
  assert.equal(first.reason, 'completed');
  rmSync(join(store.folder, attached.blob));
  const before = handle.log.events.length;
  const outcome = await handle.agent.prompt('look again');
  handle.close();
  assert.equal(outcome.reason, 'error');
  assert.equal(outcome.error?.code, 'BLOB_MISSING');
  assert.match(outcome.error?.message ?? '', new RegExp(attached.blob));
  assert.match(outcome.error?.message ?? '', new RegExp(`session ${handle.log.header.sessionId}`));
  const loaded = loadSessionFile(handle.log.path);
  assert.ok(loaded.events.length > before);
  assert.deepEqual(checkSessionInvariants(loaded.events), []);
});
