import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { UserError } from '../../src/base/errors.js';
import type {
  ModelClient,
  ModelMessage,
  ModelRequest,
  ModelStreamPart,
} from '../../src/llm/contract.js';
import { createModelClient } from '../../src/llm/providers.js';
import { createScriptedModel } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { WRAPPED_ANSWER_WORDS } from '../../src/llm/structured-answer.js';
import {
  assistant,
  collect,
  request,
  structuredOutput,
  textOf,
  toolCallsOf,
  toolResult,
  user,
} from '../helpers/model-requests.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

async function ask(client: ModelClient, ...messages: ModelMessage[]): Promise<ModelStreamPart[]> {
  return collect(client, request(messages));
}

const last = (parts: ModelStreamPart[]) => parts[parts.length - 1];
const calls = toolCallsOf;

function finishOf(parts: ModelStreamPart[]) {
  const final = last(parts);
  return final?.type === 'finish'
    ? final
    : assert.fail(`expected a finish part, got ${final?.type}`);
}

function errorOf(parts: ModelStreamPart[]) {
  const final = last(parts);
  assert.equal(final?.type, 'error');
  assert.equal(parts.filter((part) => part.type === 'error').length, 1);
  return final.type === 'error' ? final.error : assert.fail('no error part');
}

/**
 * An abort controller whose signal counts its abort listeners: the scripted model listens while
 * it waits (a delay or a hang), so `armed` is the positive signal that it has started waiting.
 */
function watchedController() {
  const controller = new AbortController();
  const { signal } = controller;
  let listening = 0;
  let markArmed = () => {};
  const armed = new Promise<void>((resolve) => {
    markArmed = resolve;
  });
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<AbortSignal['addEventListener']>) => {
    if (args[0] === 'abort') {
      listening += 1;
      markArmed();
    }
    add(...args);
  }) as AbortSignal['addEventListener'];
  signal.removeEventListener = ((...args: Parameters<AbortSignal['removeEventListener']>) => {
    if (args[0] === 'abort') listening -= 1;
    remove(...args);
  }) as AbortSignal['removeEventListener'];
  return { controller, armed, listening: () => listening };
}

/** Resolves when the model starts waiting; fails the test if the answer comes first. */
function waitingFor(watched: { armed: Promise<void> }, answer: Promise<unknown>): Promise<void> {
  return Promise.race([
    watched.armed,
    answer.then(() => assert.fail('the model answered without waiting')),
  ]);
}

const activeTimeouts = () =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

describe('scripted model: choosing a rule', () => {
  test('the first matching rule answers, with capture groups substituted', async () => {
    const client = createScriptedModel({
      rules: [
        {
          when: 'audit (\\w+)(?: in (\\w+))?',
          reply: 'no issues in {{1}}{{2}}, asked "{{prompt}}"',
        },
        { when: 'audit', reply: 'second rule' },
      ],
    });
    const first = await ask(client, user('please audit parser'));
    assert.equal(textOf(first), 'no issues in parser, asked "please audit parser"');
    assert.equal(finishOf(first).reason, 'stop');
    const again = await ask(client, user('audit lexer in src'));
    assert.equal(textOf(again), 'no issues in lexersrc, asked "audit lexer in src"');
  });

  test('the prompt is the latest user message', async () => {
    const client = createScriptedModel({
      rules: [
        { when: '^first', reply: 'matched the old prompt' },
        { when: '^second', reply: 'matched the latest prompt' },
      ],
    });
    const parts = await ask(client, user('first'), assistant('done'), user('second'));
    assert.equal(textOf(parts), 'matched the latest prompt');
  });

  test('no match uses default; absent groups become empty', async () => {
    const client = createScriptedModel({
      rules: [{ when: 'never', reply: 'no' }],
      default: { reply: 'ok: {{prompt}} [{{1}}{{9}}]' },
    });
    assert.equal(textOf(await ask(client, user('hello there'))), 'ok: hello there []');
  });

  test('a file with only a default answers every prompt from it', async () => {
    const folder = temporaryFolder('loom-scripted-');
    const path = join(folder, 'default-only.json');
    writeFileSync(path, JSON.stringify({ default: { reply: 'ok: {{prompt}}' } }));
    const client = createScriptedModel(path);
    assert.equal(textOf(await ask(client, user('anything'))), 'ok: anything');
    const inline = createScriptedModel({ default: { reply: 'same' } });
    assert.equal(textOf(await ask(inline, user('else'))), 'same');
  });

  test('no match and no default is an error naming the prompt', async () => {
    const client = createScriptedModel({ rules: [{ when: 'never', reply: 'no' }] }, { name: 'm' });
    const error = errorOf(await ask(client, user('what now?')));
    assert.equal(error.retryable, false);
    assert.match(error.message, /no rule matches the prompt "what now\?"/);
    assert.match(error.message, /scripted model m/);
  });

  test('times: an exhausted rule falls through to later rules, then to default', async () => {
    const client = createScriptedModel({
      rules: [
        { when: 'go', times: 2, reply: 'first' },
        { when: 'go', times: 1, reply: 'second' },
      ],
      default: { reply: 'default' },
    });
    const answers: string[] = [];
    for (let count = 0; count < 4; count++) answers.push(textOf(await ask(client, user('go'))));
    assert.deepEqual(answers, ['first', 'first', 'second', 'default']);
    const other = createScriptedModel({ rules: [{ when: 'go', times: 1, reply: 'fresh' }] });
    assert.equal(textOf(await ask(other, user('go'))), 'fresh', 'counts are per client');
  });

  test('times on a steps rule counts turns, not requests', async () => {
    const client = createScriptedModel({
      rules: [{ when: 'go', times: 1, steps: [{ reply: 'one' }, { reply: 'two' }] }],
      default: { reply: 'default' },
    });
    assert.equal(textOf(await ask(client, user('go'))), 'one');
    assert.equal(textOf(await ask(client, user('go'), assistant('one'))), 'two');
    assert.equal(textOf(await ask(client, user('go'), assistant('one'), user('go'))), 'default');
  });
});

describe('scripted model: responses', () => {
  test('reply streams several text parts split on word boundaries', async () => {
    const reply = 'the quick brown fox jumps over the lazy dog';
    const client = createScriptedModel({ rules: [], default: { reply } });
    const parts = await ask(client, user('x'));
    const texts = parts.filter((part) => part.type === 'text');
    assert.ok(texts.length > 1 && texts.length <= 4);
    assert.equal(textOf(parts), reply);
    for (const part of texts.slice(0, -1)) assert.match(part.text, /\s$/);
    assert.equal(last(parts)?.type, 'finish');
  });

  test('reasoning parts come before the answer', async () => {
    const client = createScriptedModel({
      rules: [{ when: 'x', reasoning: 'think about {{prompt}}', reply: 'done' }],
    });
    const parts = await ask(client, user('x'));
    assert.deepEqual(
      parts.map((part) => part.type),
      ['reasoning', 'reasoning', 'reasoning', 'text', 'finish'],
    );
    const reasoning = parts.map((part) => (part.type === 'reasoning' ? part.text : '')).join('');
    assert.equal(reasoning, 'think about x');
    assert.deepEqual(finishOf(parts).usage, { input: 1, output: 1, reasoning: 4 });
  });

  test('tools: one call per entry, ids unique per client, strings substituted', async () => {
    const client = createScriptedModel({
      rules: [
        {
          when: 'make (\\w+)',
          tools: [
            { name: 'write_file', arguments: { path: '{{1}}.txt', lines: ['{{prompt}}', 3] } },
            { name: 'glob' },
          ],
        },
      ],
    });
    const first = await ask(client, user('make notes'));
    assert.deepEqual(calls(first), [
      {
        id: 'call_1',
        name: 'write_file',
        arguments: { path: 'notes.txt', lines: ['make notes', 3] },
      },
      { id: 'call_2', name: 'glob', arguments: {} },
    ]);
    assert.equal(finishOf(first).reason, 'tool-calls');
    const second = await ask(client, user('make more'));
    assert.deepEqual(
      calls(second).map((call) => call.id),
      ['call_3', 'call_4'],
    );
  });

  test('output without a structured-output tool is JSON text', async () => {
    const client = createScriptedModel({
      rules: [{ when: 'list (\\w+)', output: { files: ['a.ts', '{{1}}.ts'], count: 2 } }],
    });
    const parts = await ask(client, user('list b'));
    assert.deepEqual(JSON.parse(textOf(parts)), { files: ['a.ts', 'b.ts'], count: 2 });
    assert.equal(calls(parts).length, 0);
    assert.equal(finishOf(parts).reason, 'stop');
  });

  test('output goes through structured_output when the request offers it', async () => {
    const client = createScriptedModel({
      rules: [{ when: 'list (\\w+)', output: { files: ['{{1}}.ts'] } }],
    });
    const parts = await collect(client, request([user('list b')], { tools: [structuredOutput] }));
    assert.deepEqual(calls(parts), [
      { id: 'call_1', name: 'structured_output', arguments: { files: ['b.ts'] } },
    ]);
    assert.equal(textOf(parts), '');
    assert.equal(finishOf(parts).reason, 'tool-calls');
  });

  test('output is the answer itself: a tool that takes it in `value` gets it wrapped, natively and in code', async () => {
    const client = createScriptedModel({ rules: [{ when: 'pick', output: ['{{prompt}}', null] }] });
    const wrappedTool = { ...structuredOutput, description: `${WRAPPED_ANSWER_WORDS}, exactly.` };
    const native = await collect(client, request([user('pick')], { tools: [wrappedTool] }));
    assert.deepEqual(calls(native), [
      { id: 'call_1', name: 'structured_output', arguments: { value: ['pick', null] } },
    ]);
    const runCode = {
      name: 'run_code',
      description: 'runs a program',
      parameters: { type: 'object' },
    };
    const sdk = (description: string) =>
      `declare const tools: {\n  /** ${description} */\n  structured_output(args: unknown): Promise<string>;\n};`;
    const [wrappedCode, plainCode] = await Promise.all(
      [WRAPPED_ANSWER_WORDS, 'Delivers your final answer as the arguments'].map(async (words) =>
        calls(
          await collect(client, request([user('pick')], { tools: [runCode], system: sdk(words) })),
        ),
      ),
    );
    assert.deepEqual(wrappedCode?.[0]?.arguments, {
      code: `await tools.structured_output({"value":["pick",null]});\nreturn 'delivered';`,
    });
    assert.deepEqual(plainCode?.[0]?.arguments, {
      code: `await tools.structured_output(["pick",null]);\nreturn 'delivered';`,
    });
  });

  test('error: a non-retryable provider error unless status says otherwise', async () => {
    const client = createScriptedModel({
      rules: [
        { when: 'plain', error: 'upstream {{prompt}}' },
        { when: 'busy', error: 'overloaded', status: 503 },
        { when: 'limited', error: 'slow down', status: 429 },
        { when: 'missing', error: 'not found', status: 404 },
      ],
    });
    const plain = await ask(client, user('plain'));
    assert.equal(plain.length, 1);
    assert.deepEqual(errorOf(plain), { message: 'upstream plain', retryable: false });
    assert.deepEqual(errorOf(await ask(client, user('busy'))), {
      message: 'overloaded',
      status: 503,
      retryable: true,
    });
    assert.equal(errorOf(await ask(client, user('limited'))).retryable, true);
    assert.equal(errorOf(await ask(client, user('missing'))).retryable, false);
  });

  test('steps follow the position in the turn; a new user message restarts them', async () => {
    const client = createScriptedModel({
      rules: [
        {
          when: 'make a file',
          steps: [
            { tools: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'hi' } }] },
            { reply: 'wrote it: {{lastToolResult}}' },
            { reply: 'still here' },
          ],
        },
      ],
    });
    const turn: ModelMessage[] = [user('make a file')];
    assert.equal(calls(await ask(client, ...turn))[0]?.name, 'write_file');
    turn.push(assistant(), toolResult('wrote 2 bytes to a.txt'));
    assert.equal(textOf(await ask(client, ...turn)), 'wrote it: wrote 2 bytes to a.txt');
    turn.push(assistant('wrote it'));
    assert.equal(textOf(await ask(client, ...turn)), 'still here');
    turn.push(assistant('again'));
    assert.equal(textOf(await ask(client, ...turn)), 'still here', 'the last step repeats');
    turn.push(user('make a file'));
    assert.equal(calls(await ask(client, ...turn)).length, 1, 'a new turn starts at steps[0]');
  });

  test('lastToolResult is empty without a tool message', async () => {
    const client = createScriptedModel({ rules: [], default: { reply: '[{{lastToolResult}}]' } });
    assert.equal(textOf(await ask(client, user('x'))), '[]');
  });
});

describe('scripted model: usage', () => {
  test('estimates about four characters a token', async () => {
    const client = createScriptedModel({ rules: [], default: { reply: 'abcde' } });
    const parts = await collect(client, request([user('hello!!!')], { system: 'abcd' }));
    assert.deepEqual(last(parts), {
      type: 'finish',
      reason: 'stop',
      usage: { input: 3, output: 2 },
    });
  });

  test('counts tool arguments as output and every message as input', async () => {
    const client = createScriptedModel({
      rules: [{ when: '', tools: [{ name: 'glob', arguments: { pattern: 'abc' } }] }],
    });
    const messages = [user('12345678'), assistant('1234'), toolResult('1234')];
    const parts = await collect(client, request(messages));
    assert.deepEqual(finishOf(parts).usage, {
      input: 4,
      output: Math.ceil('{"pattern":"abc"}'.length / 4),
    });
  });

  test('a rule usage is reported as given, on finish and on error', async () => {
    const usage = { input: 1000, output: 50 };
    const client = createScriptedModel({
      rules: [
        { when: 'ok', reply: 'fine', usage },
        { when: 'bad', error: 'broken', usage },
        { when: 'steps', usage, steps: [{ reply: 'inherited' }] },
      ],
    });
    assert.deepEqual(finishOf(await ask(client, user('ok'))).usage, usage);
    const bad = last(await ask(client, user('bad')));
    assert.deepEqual(bad?.type === 'error' && bad.usage, usage);
    assert.deepEqual(finishOf(await ask(client, user('steps'))).usage, usage);
  });
});

describe('scripted model: context window and cache usage', () => {
  test('a rule usage with cacheRead and cacheWrite is reported as given', async () => {
    const client = createScriptedModel({
      rules: [
        {
          when: 'cached',
          reply: 'x',
          usage: { input: 100, output: 5, cacheRead: 60, cacheWrite: 30 },
        },
        { when: 'steps', usage: { input: 9, output: 1, cacheWrite: 9 }, steps: [{ reply: 'y' }] },
      ],
    });
    assert.deepEqual(finishOf(await ask(client, user('cached'))).usage, {
      input: 100,
      output: 5,
      cachedInput: 60,
      cacheWrite: 30,
    });
    assert.deepEqual(finishOf(await ask(client, user('steps'))).usage, {
      input: 9,
      output: 1,
      cacheWrite: 9,
    });
  });

  test('the declared context and images are the client limits, kept through createModelClient', () => {
    const file: ScriptedModelFile = { context: 16_384, images: true, default: { reply: 'x' } };
    assert.deepEqual(createScriptedModel(file).limits, { context: 16_384, images: true });
    assert.deepEqual(createScriptedModel({ context: 500, default: { reply: 'x' } }).limits, {
      context: 500,
    });
    assert.equal(createScriptedModel({ default: { reply: 'x' } }).limits, undefined);
    const path = join(temporaryFolder(), 'model.json');
    writeFileSync(path, JSON.stringify(file));
    assert.deepEqual(createModelClient(`scripted:${path}`).limits, {
      context: 16_384,
      images: true,
    });
  });

  test('a request larger than the window fails as a provider overflow, before any rule answers', async () => {
    const client = createScriptedModel({
      context: 10,
      rules: [{ when: '', reply: 'fits', times: 1 }],
    });
    // 44 characters are 11 tokens, one more than the window.
    const parts = await collect(client, request([user('x'.repeat(40))], { system: 'abcd' }));
    assert.deepEqual(parts, [
      {
        type: 'error',
        error: {
          message: 'context length exceeded: the request has 11 tokens, the window is 10',
          status: 400,
          retryable: false,
          contextOverflow: true,
        },
        usage: { input: 0, output: 0 },
      },
    ]);
    assert.deepEqual(client.calls[0]?.rule, { kind: 'overflow' });
    // Exactly the window fits, and the rule the overflow did not use still answers.
    assert.equal(textOf(await ask(client, user('x'.repeat(40)))), 'fits');
    assert.deepEqual(client.unusedRules(), []);
  });

  test('an overflow is not retried by the retry policy of createModelClient', async () => {
    const path = join(temporaryFolder(), 'model.json');
    writeFileSync(path, JSON.stringify({ context: 1, default: { reply: 'x' } }));
    const parts = await collect(createModelClient(`scripted:${path}`), request([user('hello')]));
    assert.equal(parts.length, 1);
    assert.equal(errorOf(parts).contextOverflow, true);
  });

  test('a rule error "context length exceeded" is an overflow, never retryable', async () => {
    const client = createScriptedModel({
      rules: [
        { when: 'plain', error: 'context length exceeded' },
        { when: 'loud', error: 'Context length exceeded', status: 503 },
        { when: 'other', error: 'upstream 500', status: 500 },
      ],
    });
    assert.deepEqual(errorOf(await ask(client, user('plain'))), {
      message: 'context length exceeded',
      retryable: false,
      contextOverflow: true,
    });
    assert.deepEqual(errorOf(await ask(client, user('loud'))), {
      message: 'Context length exceeded',
      status: 503,
      retryable: false,
      contextOverflow: true,
    });
    assert.equal(errorOf(await ask(client, user('other'))).contextOverflow, undefined);
  });
});

describe('scripted model: delay, hang and abort', () => {
  test('delayMs holds the answer until the delay elapses', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const client = createScriptedModel({ rules: [{ when: 'slow', delayMs: 300, reply: 'late' }] });
    const watched = watchedController();
    const iterator = client
      .stream(request([user('slow')], { signal: watched.controller.signal }))
      [Symbol.asyncIterator]();
    const first = iterator.next();
    await waitingFor(watched, first);
    t.mock.timers.tick(299);
    assert.equal(watched.listening(), 1, 'still waiting after 299 ms');
    t.mock.timers.tick(1);
    assert.equal(watched.listening(), 0, 'the wait ended at 300 ms');
    assert.deepEqual((await first).value, { type: 'text', text: 'late' });
  });

  test('abort during a delay ends with one aborted error and leaves no timer behind', async () => {
    const client = createScriptedModel({ rules: [{ when: 'slow', delayMs: 60_000, reply: 'x' }] });
    const before = activeTimeouts();
    const watched = watchedController();
    const pending = collect(client, request([user('slow')], { signal: watched.controller.signal }));
    await waitingFor(watched, pending);
    assert.equal(activeTimeouts(), before + 1, 'the delay holds a timer');
    watched.controller.abort();
    const parts = await pending;
    assert.equal(parts.length, 1);
    assert.equal(errorOf(parts).aborted, true);
    assert.equal(activeTimeouts(), before, 'the timer went with the abort');
  });

  test('hang never answers until the signal aborts', async () => {
    const client = createScriptedModel({ rules: [{ when: 'stuck', hang: true }] });
    const watched = watchedController();
    let done = false;
    const pending = collect(
      client,
      request([user('stuck')], { signal: watched.controller.signal }),
    );
    pending.then(() => {
      done = true;
    });
    await waitingFor(watched, pending);
    assert.equal(done, false, 'waiting for the abort, not for anything else');
    watched.controller.abort();
    const parts = await pending;
    assert.equal(parts.length, 1);
    const error = errorOf(parts);
    assert.equal(error.aborted, true);
    assert.equal(error.retryable, false);
  });

  test('an already aborted signal answers with one aborted error', async () => {
    const client = createScriptedModel({ rules: [], default: { reply: 'never' } });
    const parts = await collect(client, request([user('x')], { signal: AbortSignal.abort() }));
    assert.equal(parts.length, 1);
    assert.equal(errorOf(parts).aborted, true);
  });

  test('abort between parts ends the stream with one aborted error', async () => {
    const client = createScriptedModel({ rules: [], default: { reply: 'one two three four' } });
    const controller = new AbortController();
    const parts: ModelStreamPart[] = [];
    for await (const part of client.stream(request([user('x')], { signal: controller.signal }))) {
      parts.push(part);
      controller.abort();
    }
    assert.deepEqual(
      parts.map((part) => part.type),
      ['text', 'error'],
    );
    assert.equal(errorOf(parts).aborted, true);
  });
});

describe('scripted model: construction', () => {
  test('ids name the path, the given name, or inline', () => {
    const file: ScriptedModelFile = { rules: [], default: { reply: 'x' } };
    assert.equal(createScriptedModel(file).id, 'scripted:inline');
    assert.equal(createScriptedModel(file, { name: 'review' }).id, 'scripted:review');
    const path = fileURLToPath(new URL('../../examples/scripted/review.json', import.meta.url));
    assert.equal(createScriptedModel(path).id, `scripted:${path}`);
  });

  test('an invalid inline model or a missing file throws a UserError at creation', () => {
    const invalid = { rules: [{ when: '(', reply: 'x' }] } as ScriptedModelFile;
    assert.throws(
      () => createScriptedModel(invalid, { name: 'bad' }),
      (error: unknown) => {
        assert.ok(error instanceof UserError);
        assert.equal(error.code, 'INVALID_SCRIPTED_MODEL');
        assert.match(error.message, /bad: rules\[0\]\.when: invalid regular expression/);
        return true;
      },
    );
    assert.throws(() => createScriptedModel('no/such/model.json'), /no\/such\/model\.json/);
  });

  test('stream() never throws, even for a malformed request', async () => {
    const client = createScriptedModel({ rules: [], default: { reply: 'x' } });
    const broken = { ...request([]), messages: null } as unknown as ModelRequest;
    const parts = await collect(client, broken);
    assert.equal(parts.length, 1);
    assert.match(errorOf(parts).message, /scripted model inline failed/);
  });
});

describe('examples/scripted/review.json', () => {
  const path = fileURLToPath(new URL('../../examples/scripted/review.json', import.meta.url));

  test('reviews, and writes a summary then reports the tool result', async () => {
    const client = createScriptedModel(path);
    const review = await ask(client, user('review src/a.ts'));
    assert.equal(textOf(review), 'Reviewed src/a.ts: no issues found.');
    assert.equal(review[0]?.type, 'reasoning');
    const turn: ModelMessage[] = [user('summarise src/a.ts into review.md')];
    const write = calls(await ask(client, ...turn));
    assert.equal(write[0]?.name, 'write_file');
    assert.deepEqual(write[0]?.arguments, {
      path: 'review.md',
      content: '# Review of src/a.ts\n\nNo issues found.\n',
    });
    turn.push(assistant(), toolResult('wrote 38 bytes'));
    assert.equal(textOf(await ask(client, ...turn)), 'Saved the summary: wrote 38 bytes');
    assert.equal(errorOf(await ask(client, user('flaky'))).retryable, true);
    assert.equal(textOf(await ask(client, user('flaky'))), 'ok: flaky');
  });
});
