/**
 * Images in the interactive terminal: an `@shot.png` mention and a pasted (quoted, with a space)
 * image path attach those images to the prompt, which reaches a model that takes images with
 * both; the text is sent as typed. bin/loom in a pseudo-terminal with the scripted model.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { sha256Of } from '../../src/core/blob-store.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import { scriptedFolders } from '../cli/loom-process.js';
import { sessions } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { quit, send, startScreen } from './pty-screen.js';

test('an @image mention and a pasted image path attach both images to the prompt', async () => {
  const folders = scriptedFolders({
    images: true,
    default: { reply: 'got {{images}}' },
  });
  const shot = await sharp({ create: { width: 6, height: 2, channels: 3, background: '#0a0' } })
    .png()
    .toBuffer();
  const pasted = await sharp({ create: { width: 3, height: 7, channels: 3, background: '#a00' } })
    .jpeg()
    .toBuffer();
  writeFileSync(join(folders.workspace, 'shot.png'), shot);
  const elsewhere = join(temporaryFolder(), 'my pictures');
  mkdirSync(elsewhere);
  const pastedPath = join(elsewhere, 'drop.jpg');
  writeFileSync(pastedPath, pasted);

  const screen = startScreen(['--model', `scripted:${folders.model}`], {
    home: folders.home,
    cwd: folders.workspace,
  });
  await screen.waitFor('ask loom');
  const prompt = `compare @shot.png with '${pastedPath}' please`;
  await send(screen, prompt);
  await screen.waitFor('attached 2 images');
  await screen.waitFor('got image/png 6x2');
  await quit(screen);

  const [session] = sessions(folders.home);
  const message = session?.events.find((event) => event.type === 'user/message') as
    | SessionEvent<'user/message'>
    | undefined;
  assert.equal(message?.data.text, prompt);
  assert.deepEqual(
    message?.data.images?.map((image) => [image.mediaType, image.blob]),
    [
      ['image/png', sha256Of(shot)],
      ['image/jpeg', sha256Of(pasted)],
    ],
  );
  const answer = session?.events.find((event) => event.type === 'assistant/message') as
    | SessionEvent<'assistant/message'>
    | undefined;
  assert.equal(
    answer?.data.text,
    `got image/png 6x2 ${shot.length} bytes sha256 ${sha256Of(shot)}; image/jpeg 3x7 ${pasted.length} bytes sha256 ${sha256Of(pasted)}`,
  );
});
