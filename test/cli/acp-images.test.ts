/**
 * `loom acp` and images: the agent advertises `promptCapabilities.image`, an image block of a
 * `session/prompt` reaches a model that takes images as an image part (kept by hash in the log,
 * its bytes in `$LOOM_HOME/blobs/`, replayed by `session/load`), and a block whose data is no
 * image is refused naming it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { sha256Of } from '../../src/core/blob-store.js';
import { initialize, messageText } from '../helpers/acp-client.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { withLoomAcp } from './loom-acp.js';
import { writeScriptedModel } from './loom-process.js';

test('loom acp: an image block of a prompt reaches an image model; a block that is no image is refused', async () => {
  const home = temporaryFolder();
  const workspace = temporaryFolder();
  const model = writeScriptedModel(home, {
    images: true,
    default: { reply: 'prompt: {{prompt}} | images: {{images}}' },
  });
  const bytes = await sharp({ create: { width: 9, height: 4, channels: 3, background: '#f80' } })
    .webp()
    .toBuffer();
  const sessionId = await withLoomAcp({ home, model }, async (agent, log) => {
    const init = await initialize(agent);
    assert.equal(init.agentCapabilities?.promptCapabilities?.image, true);
    const { sessionId } = await agent.request('session/new', { cwd: workspace, mcpServers: [] });
    const response = await agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', mimeType: 'image/webp', data: bytes.toString('base64') },
      ],
    });
    assert.equal(response.stopReason, 'end_turn');
    assert.equal(
      messageText(log.updates),
      `prompt: what is this? | images: image/webp 9x4 ${bytes.length} bytes sha256 ${sha256Of(bytes)}`,
    );
    await assert.rejects(
      agent.request('session/prompt', {
        sessionId,
        prompt: [
          { type: 'text', text: 'and this?' },
          {
            type: 'image',
            mimeType: 'image/png',
            data: Buffer.from('plain text').toString('base64'),
          },
        ],
      }),
      /prompt\[1\] \(image\/png\) is not a PNG, JPEG, GIF or WebP image/,
    );
    return sessionId;
  });
  await withLoomAcp({ home, model }, async (agent, log) => {
    await initialize(agent);
    await agent.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
    const user = log.updates.filter((update) => update.sessionUpdate === 'user_message_chunk');
    assert.deepEqual(
      user.map((update) => update.content),
      [
        { type: 'text', text: 'what is this?' },
        { type: 'image', mimeType: 'image/webp', data: bytes.toString('base64') },
      ],
      'session/load replays the image with the text',
    );
  });
  const file = readFileSync(join(home, 'sessions', `${sessionId}.jsonl`), 'utf8');
  assert.ok(file.includes(`"blob":"${sha256Of(bytes)}"`), 'the log names the blob');
  assert.ok(!file.includes(bytes.toString('base64')), 'the log holds no base64');
  assert.deepEqual(readFileSync(join(home, 'blobs', sha256Of(bytes))), bytes);
});
