/**
 * What Loom checks as it starts (issue 30, item 21), through bin/loom: a home-config `model:`
 * naming a route that is not there fails `loom acp` at start, naming it, not at the first
 * session; a session file with CRLF line ends reads line by line, and goes on.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { temporaryFolder } from '../helpers/temporary-folder.js';
import { runLoom, runScripted, scriptedFolders } from './loom-process.js';

const NO_MODEL_ENV = { DEEPSEEK_API_KEY: '', LOOM_MODEL: '' };

test('loom acp with a home-config model: naming an unknown route fails at start, naming it', async () => {
  const home = temporaryFolder();
  writeFileSync(
    join(home, 'config.yaml'),
    'model: work\nmodels:\n  home-box:\n    provider: openai-compatible\n    baseURL: http://127.0.0.1:9/v1\n    model: m\n',
  );
  const result = await runLoom(['acp'], { home, env: NO_MODEL_ENV, cwd: home });
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '', 'no protocol message: it never served');
  assert.match(
    result.stderr,
    /^loom acp: could not start: the model from config `model:` is not usable: model spec "work" names no provider.*routes: home-box/,
  );
});

test('a session file with CRLF line ends is read line by line: listed, shown and continued', async () => {
  const folders = scriptedFolders({ default: { reply: 'ok: {{prompt}}' } });
  assert.equal((await runScripted(folders, 'first')).code, 0);
  const sessions = join(folders.home, 'sessions');
  const name = readdirSync(sessions).find((file) => file.endsWith('.jsonl')) ?? '';
  const id = name.slice(0, -'.jsonl'.length);
  const path = join(sessions, name);
  writeFileSync(path, readFileSync(path, 'utf8').replace(/\n/g, '\r\n'));
  const listed = await runLoom(['sessions', 'list', '--cwd', folders.workspace], {
    home: folders.home,
  });
  assert.match(listed.stdout, new RegExp(`^${id} .* first +1 turn$`, 'm'), listed.stdout);
  const continued = await runScripted(folders, 'second', { args: ['--session', id] });
  assert.equal(continued.code, 0, continued.stderr);
  assert.equal(continued.stdout, 'ok: second\n');
  const shown = await runLoom(['sessions', 'show', id, '--json'], { home: folders.home });
  assert.equal(shown.code, 0, shown.stderr);
  const messages = shown.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; data: { text?: string } })
    .filter((event) => event.type === 'user/message')
    .map((event) => event.data.text);
  assert.deepEqual(messages, ['first', 'second']);
});
