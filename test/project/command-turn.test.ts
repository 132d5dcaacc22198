/**
 * A custom command's turn on a real agent: its model and allowed-tools hold for that turn only
 * (the other tools hidden from the request, a call outside them denied), `command/run` is logged
 * before the message, and the next turn has the session's model and tools again. A command that
 * cannot run fails before anything is sent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LoomError } from '../../src/base/errors.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import { parseAllowedTools } from '../../src/project/command-allowed-tools.js';
import type { CustomCommand } from '../../src/project/command-contract.js';
import { runCommandTurn } from '../../src/project/command-turn.js';
import { builtinTools } from '../../src/tools/index.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { bashCall, callsThenReply } from '../helpers/scripted-turns.js';
import { toolResults } from '../helpers/session-files.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

function command(fields: Partial<CustomCommand>): CustomCommand {
  return {
    name: 'ship',
    description: 'Ship it',
    body: 'Ship $1 now.',
    file: '/nowhere/.claude/commands/ship.md',
    origin: 'claude',
    ...fields,
  };
}

test('model and allowed-tools apply to the command turn only; calls outside them are denied', async () => {
  const home = temporaryFolder();
  const session = createScriptedModel(
    { default: { reply: 'session model: {{prompt}}' } },
    { name: 'session' },
  );
  const other = createScriptedModel(
    {
      rules: [
        callsThenReply(
          'Ship',
          [
            bashCall('echo shipped'),
            bashCall('echo x && rm -rf build'),
            { name: 'glob', arguments: { pattern: '*' } },
          ],
          'done',
        ),
      ],
    },
    { name: 'other' },
  );
  const runtime = runtimeOver(session, home);
  runtime.offerTools(builtinTools({ workspace: { root: home, extraRoots: [] } }));
  const handle = runtime.start();
  const allowedTools = parseAllowedTools('Bash(echo:*), Read');
  assert.ok(Array.isArray(allowedTools));
  const outcome = await runCommandTurn(
    handle,
    { command: command({ model: 'scripted:other', allowedTools }), args: 'v1.2' },
    {
      resolveModel: (spec) => {
        assert.equal(spec, 'scripted:other');
        return other;
      },
      start: (text) => handle.agent.prompt(text),
      workspace: home,
    },
  );
  assert.equal(outcome.reason, 'completed');
  assert.equal(outcome.text, 'done');
  assert.deepEqual(
    other.calls[0]?.tools.map((tool) => tool.name).sort(),
    ['bash', 'read_file'],
    'only the allowed tools were offered',
  );
  assert.equal(other.calls[0]?.prompt, 'Ship v1.2 now.');
  const results = toolResults(handle.log.events);
  assert.deepEqual(
    results.map((result) => [result.isError, result.errorCode]),
    [
      [false, undefined],
      [true, 'TOOL_DENIED'],
      [true, 'UNKNOWN_TOOL'],
    ],
  );
  assert.match(
    results[1]?.content ?? '',
    /this turn runs \/ship, whose allowed-tools are Bash\(echo:\*\), Read: the command "rm -rf build" matches none of Bash\(echo:\*\)/,
  );
  const types = handle.log.events.map((event) => event.type);
  assert.ok(types.indexOf('command/run') < types.indexOf('user/message'));
  const run = handle.log.events.find((event) => event.type === 'command/run');
  assert.deepEqual(run?.data, {
    name: 'ship',
    file: '/nowhere/.claude/commands/ship.md',
    arguments: 'v1.2',
    model: 'scripted:other',
    allowedTools: ['Bash(echo:*)', 'Read'],
  });
  // The next turn: the session's model and every tool again.
  const next = await handle.agent.prompt('and now?');
  assert.equal(next.text, 'session model: and now?');
  assert.ok((session.calls.at(-1)?.tools.length ?? 0) > 2);
  assert.equal(handle.agent.model, session);
  handle.close();
});

test('a command that cannot run fails before anything is logged or sent', async () => {
  const home = temporaryFolder();
  const model = createScriptedModel({ default: { reply: 'ok' } });
  const runtime = runtimeOver(model, home);
  const handle = runtime.start();
  const events = handle.log.events.length;
  await assert.rejects(
    runCommandTurn(
      handle,
      { command: command({ problem: 'ship.md:2: model: "sonnet" is not a model spec' }), args: '' },
      {
        resolveModel: () => model,
        start: (text) => handle.agent.prompt(text),
        workspace: home,
      },
    ),
    (error: unknown) =>
      error instanceof LoomError &&
      error.code === 'COMMAND_UNUSABLE' &&
      error.message === '/ship cannot run: ship.md:2: model: "sonnet" is not a model spec',
  );
  await assert.rejects(
    runCommandTurn(
      handle,
      { command: command({ model: 'nope:x' }), args: '' },
      {
        resolveModel: () => {
          throw new Error('unknown provider nope');
        },
        start: (text) => handle.agent.prompt(text),
        workspace: home,
      },
    ),
    /\/ship cannot run: its model nope:x \(\/nowhere\/\.claude\/commands\/ship\.md\): unknown provider nope/,
  );
  assert.equal(handle.log.events.length, events);
  assert.equal(model.calls.length, 0);
  handle.close();
});

test('sent while a turn runs, the command waits for it and starts a turn of its own', async () => {
  const home = temporaryFolder();
  const model = createScriptedModel({
    rules: [{ when: 'slow', delayMs: 50, reply: 'slow done' }],
    default: { reply: 'ok: {{prompt}}' },
  });
  const runtime = runtimeOver(model, home);
  const handle = runtime.start();
  const first = handle.agent.prompt('slow');
  const commandTurn = runCommandTurn(
    handle,
    { command: command({}), args: 'it' },
    {
      resolveModel: () => model,
      start: (text) => handle.agent.prompt(text),
      workspace: home,
    },
  );
  assert.equal((await first).text, 'slow done');
  const outcome = await commandTurn;
  assert.equal(outcome.text, 'ok: Ship it now.');
  const turns = handle.log.events.filter((event) => event.type === 'turn/start');
  assert.equal(turns.length, 2);
  handle.close();
});
