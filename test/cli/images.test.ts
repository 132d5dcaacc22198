/**
 * Images through `bin/loom` with the scripted model (issue 37): read_file of an image reaches a
 * model that takes images as an image part and any other as a description; `--image FILE`
 * attaches images to the prompt (a bad path is a usage error naming it); config's
 * `models.scripted.images` decides for a scripted file that declares nothing; an MCP tool's image
 * result reaches an image model as an image; the log keeps hashes (the bytes are in
 * `$LOOM_HOME/blobs/`), never base64.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { sha256Of } from '../../src/core/blob-store.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { ndjsonLines, sessionPaths } from '../helpers/session-files.js';
import { stdioServerYaml } from '../mcp/mcp-fixtures.js';
import { runScripted, scriptedFolders, writeScriptedModel } from './loom-process.js';

const picture = (width: number, height: number, format: 'png' | 'jpeg' = 'png') =>
  sharp({ create: { width, height, channels: 3, background: '#3060c0' } })
    .toFormat(format)
    .toBuffer();

const readImage = (images?: boolean) => ({
  ...(images === undefined ? {} : { images }),
  rules: [
    callsThenReply(
      '^read (\\S+)',
      [{ name: 'read_file', arguments: { path: '{{1}}' } }],
      'seen: {{images}} | result: {{lastToolResult}}',
    ),
  ],
  default: { reply: 'prompt images: {{images}}' },
});

type ResultData = SessionEvent<'tool/result'>['data'];

test('read_file of a PNG reaches an image model as an image part and a text model as a description; the log keeps the hash', async () => {
  const folders = scriptedFolders(readImage(true));
  const bytes = await picture(30, 20);
  writeFileSync(join(folders.workspace, 'chart.png'), bytes);
  const hash = sha256Of(bytes);

  const seen = await runScripted(folders, 'read chart.png');
  assert.equal(seen.code, 0, seen.stderr);
  assert.equal(
    seen.stdout,
    `seen: image/png 30x20 ${bytes.length} bytes sha256 ${hash} | result: Image chart.png (image/png, 30x20 pixels, ${bytes.length} bytes)\n`,
  );

  writeScriptedModel(folders.home, readImage(false));
  const described = await runScripted(folders, 'read chart.png', { json: true });
  assert.equal(described.code, 0, described.stderr);
  const lines = ndjsonLines(described.stdout);
  const answer = lines.find((line) => line.type === 'assistant/message' && line.data.text !== '');
  assert.equal(
    answer?.data.text,
    `seen: no images | result: Image chart.png (image/png, 30x20 pixels, ${bytes.length} bytes)\n[image: image/png, ${bytes.length} bytes, 30x20 pixels, sha256 ${hash.slice(0, 12)}; this model does not take images]`,
  );
  const result = lines.find((line) => line.type === 'tool/result')?.data as unknown as ResultData;
  assert.deepEqual(result.images, [
    {
      type: 'image',
      mediaType: 'image/png',
      blob: hash,
      bytes: bytes.length,
      width: 30,
      height: 20,
    },
  ]);

  assert.deepEqual(readFileSync(join(folders.home, 'blobs', hash)), bytes);
  for (const path of sessionPaths(folders.home)) {
    const text = readFileSync(path, 'utf8');
    assert.ok(!text.includes(bytes.toString('base64').slice(0, 40)), `base64 in ${path}`);
    assert.deepEqual(checkSessionInvariants(loadSessionFile(path).events), []);
  }
});

test('an image larger than providers take is scaled down before it is kept and sent', async () => {
  const folders = scriptedFolders(readImage(true));
  writeFileSync(join(folders.workspace, 'wide.jpg'), await picture(4000, 1000, 'jpeg'));
  const run = await runScripted(folders, 'read wide.jpg');
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /^seen: image\/jpeg 2000x500 \d+ bytes sha256 [0-9a-f]{64} \| result: Image wide\.jpg \(image\/jpeg, 2000x500 pixels, [\d,]+ bytes, scaled down from 4000x1000 pixels and [\d,]+ bytes\)\n$/,
  );
});

test('loom run --image attaches each image to the prompt; a bad path fails naming the file', async () => {
  const folders = scriptedFolders(readImage(true));
  const one = await picture(4, 3);
  const two = await picture(8, 6, 'jpeg');
  writeFileSync(join(folders.workspace, 'one.png'), one);
  writeFileSync(join(folders.workspace, 'two.jpg'), two);
  writeFileSync(join(folders.workspace, 'notes.txt'), 'not an image');
  const run = await runScripted(folders, 'what are these?', {
    args: [
      '--image',
      join(folders.workspace, 'one.png'),
      '--image',
      join(folders.workspace, 'two.jpg'),
    ],
    json: true,
  });
  assert.equal(run.code, 0, run.stderr);
  const lines = ndjsonLines(run.stdout);
  const answer = lines.find((line) => line.type === 'assistant/message');
  assert.equal(
    answer?.data.text,
    `prompt images: image/png 4x3 ${one.length} bytes sha256 ${sha256Of(one)}; image/jpeg 8x6 ${two.length} bytes sha256 ${sha256Of(two)}`,
  );
  const message = lines.find((line) => line.type === 'user/message');
  assert.deepEqual(
    ((message?.data.images ?? []) as Array<{ blob: string }>).map((image) => image.blob),
    [sha256Of(one), sha256Of(two)],
  );

  const missing = await runScripted(folders, 'hello', { args: ['--image', 'no-such.png'] });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--image no-such\.png: cannot read .*no-such\.png: no such file/);
  const text = await runScripted(folders, 'hello', {
    args: ['--image', join(folders.workspace, 'notes.txt')],
  });
  assert.equal(text.code, 2);
  assert.match(text.stderr, /notes\.txt is not a PNG, JPEG, GIF or WebP image/);
  assert.equal(sessionPaths(folders.home).length, 1, 'a refused run makes no session');
});

test('config models.scripted.images: true makes a scripted file that declares nothing take images', async () => {
  const folders = scriptedFolders(readImage());
  const bytes = await picture(5, 5);
  writeFileSync(join(folders.workspace, 'dot.png'), bytes);
  const before = await runScripted(folders, 'read dot.png');
  assert.match(before.stdout, /^seen: no images/);
  writeFileSync(join(folders.home, 'config.yaml'), 'models:\n  scripted:\n    images: true\n');
  const after = await runScripted(folders, 'read dot.png');
  assert.equal(after.code, 0, after.stderr);
  assert.match(
    after.stdout,
    new RegExp(`^seen: image/png 5x5 ${bytes.length} bytes sha256 ${sha256Of(bytes)} \\|`),
  );
});

test("an MCP tool's image result reaches an image model as an image, and stays named in the text", async () => {
  const folders = scriptedFolders({
    images: true,
    rules: [
      callsThenReply(
        'picture',
        [{ name: 'mcp__files__picture', arguments: {} }],
        'seen: {{images}} | result: {{lastToolResult}}',
      ),
    ],
  });
  const pidFile = join(folders.home, 'files.pids');
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `mcp:\n  servers:\n    files: ${stdioServerYaml('files', pidFile)}\n`,
  );
  const run = await runScripted(folders, 'picture', { json: true });
  assert.equal(run.code, 0, run.stderr);
  const lines = ndjsonLines(run.stdout);
  const answer = lines.find((line) => line.type === 'assistant/message' && line.data.text !== '');
  assert.match(
    String(answer?.data.text),
    /^seen: image\/png 1x1 70 bytes sha256 [0-9a-f]{64} \| result: \[image: image\/png, 70 bytes\]\n\[resource file:\/\/\/notes\.txt/,
  );
  const result = lines.find((line) => line.type === 'tool/result')?.data as unknown as ResultData;
  const blob = result.images?.[0]?.blob ?? '';
  assert.ok(existsSync(join(folders.home, 'blobs', blob)), 'the image is in the blob store');
  assert.deepEqual(readdirSync(join(folders.home, 'blobs')), [blob]);
});
