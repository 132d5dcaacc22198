/**
 * Through bin/loom with the scripted model and the changing fixture server
 * (test/mcp/fixtures/changing-server.mjs): a prompt and a resource the server adds during a call
 * are listed again before the call's result (`mcp/prompts-changed`, `mcp/resources-changed`
 * with what was added); an elicitation the server sends right after it connects, with no call
 * in flight, goes to the only session's questions (`--answers` answers it; headless it is
 * declined at once, the refusal logged).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSessionFile } from '../../src/core/session-load.js';
import { checkSessionInvariants } from '../../src/testing/invariants.js';
import { runScripted, scriptedFolders } from '../cli/loom-process.js';
import { callsThenReply } from '../helpers/scripted-turns.js';
import { ndjsonLines } from '../helpers/session-files.js';
import { CHANGING_SERVER } from './mcp-fixtures.js';

interface JsonEvent {
  sessionId: string;
  type: string;
  data: Record<string, unknown>;
}

async function run(
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
  serverArgs: string[],
  answers?: Record<string, unknown>,
) {
  const folders = scriptedFolders({ rules: [callsThenReply('go', calls, 'done')] });
  writeFileSync(
    join(folders.home, 'config.yaml'),
    `mcp:\n  servers:\n    change: { command: ${JSON.stringify(process.execPath)}, args: ${JSON.stringify([CHANGING_SERVER, join(folders.home, 'wire.txt'), ...serverArgs])} }\n`,
  );
  const args: string[] = [];
  if (answers) {
    const file = join(folders.home, 'answers.json');
    writeFileSync(file, JSON.stringify(answers));
    args.push('--answers', file);
  }
  const result = await runScripted(folders, 'go', { json: true, args });
  assert.equal(result.code, 0, result.stderr);
  const all = ndjsonLines<JsonEvent>(result.stdout);
  const file = join(folders.home, 'sessions', `${all[0]?.sessionId}.jsonl`);
  assert.deepEqual(checkSessionInvariants(loadSessionFile(file).events), []);
  const of = (type: string) => all.filter((event) => event.type === type).map((e) => e.data);
  return { all, of, stderr: result.stderr };
}

test('a prompt and a resource added during a call are listed again before its result, and logged', async () => {
  const { all, of } = await run(
    [
      { name: 'mcp__change__add-prompt', arguments: { name: 'brief' } },
      { name: 'mcp__change__add-resource', arguments: { name: 'second' } },
    ],
    [],
  );
  assert.deepEqual(of('mcp/prompts-changed'), [
    {
      server: 'change',
      prompts: ['mcp__change__first', 'mcp__change__brief'],
      added: ['mcp__change__brief'],
      removed: [],
    },
  ]);
  assert.deepEqual(of('mcp/resources-changed'), [
    {
      server: 'change',
      resources: [
        'change:fixture://first',
        'change:fixture://second',
        'change:fixture://notes/{topic}',
      ],
      added: ['change:fixture://second'],
      removed: [],
    },
  ]);
  // Each change is logged before the result of the call that made it.
  const order = all
    .map((event) => event.type)
    .filter((type) => /^(tool\/result|mcp\/(prompts|resources)-changed)$/.test(type));
  assert.deepEqual(order, [
    'mcp/prompts-changed',
    'tool/result',
    'mcp/resources-changed',
    'tool/result',
  ]);
});

test('an elicitation right after connect, with no call in flight, is asked of the session: --answers answers it', async () => {
  const { of } = await run(
    [{ name: 'mcp__change__elicited', arguments: {} }],
    ['elicit-on-connect'],
    {
      name: 'Ada',
    },
  );
  const [result] = of('tool/result');
  assert.deepEqual(JSON.parse(String(result?.content)), {
    action: 'accept',
    content: { name: 'Ada' },
  });
  const [asked] = of('question/ask') as Array<{
    callId: string;
    questions: Array<{ header: string }>;
  }>;
  assert.deepEqual(
    asked?.questions.map((question) => question.header),
    ['name'],
  );
  assert.match(String(asked?.callId), /^mcp-elicitation-change-\d+$/);
  assert.deepEqual(
    of('question/answer').map((answer) => [answer.callId, answer.outcome]),
    [[asked?.callId, 'answered']],
  );
});

test('headless with nobody to ask, an elicitation right after connect is declined at once, the refusal logged', async () => {
  const { of } = await run(
    [{ name: 'mcp__change__elicited', arguments: {} }],
    ['elicit-on-connect'],
  );
  const [result] = of('tool/result');
  assert.deepEqual(JSON.parse(String(result?.content)), { action: 'decline' });
  assert.deepEqual(
    of('question/answer').map((answer) => [answer.outcome, answer.code]),
    [['refused', 'NO_USER']],
  );
});
