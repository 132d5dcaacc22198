/**
 * Hooks at each agent event, on a runtime over the scripted model: UserPromptSubmit refuses a
 * prompt or adds context, SessionStart's context reaches the first turn, Stop and SubagentStop
 * keep an agent going, PreToolUse blocks, approves or asks beside the permission rules,
 * PostToolUse reads `tool_response` and speaks to the model, PreCompact and Notification run.
 * Every run is logged as `hook/run`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { installPermissionRules } from '../../src/config/permissions.js';
import type { HooksConfig, PermissionRule } from '../../src/config/schema.js';
import { compactAgent } from '../../src/context/manual-compaction.js';
import { Context } from '../../src/core/context.js';
import type { AgentRuntime } from '../../src/core/runtime.js';
import type { SessionEvent } from '../../src/core/session-events.js';
import type { SessionLog } from '../../src/core/session-log.js';
import { permissionAskerKey } from '../../src/core/tool-pipeline.js';
import { createScriptedModel, type ScriptedModelClient } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import type { HookEventName, HookRunEvent } from '../../src/project/hook-contract.js';
import { installHooks } from '../../src/project/hook-install.js';
import { countingEcho } from '../helpers/echo-tool.js';
import { runtimeOver } from '../helpers/model-runtime.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

interface HookedRuntime {
  runtime: AgentRuntime;
  model: ScriptedModelClient;
  workspace: string;
  echo: ReturnType<typeof countingEcho>;
}

function hooked(
  script: ScriptedModelFile,
  hooks: Partial<Record<HookEventName, string>>,
  rules: PermissionRule[] = [],
): HookedRuntime {
  const workspace = temporaryFolder('loom-hooks-');
  const model = createScriptedModel(script);
  const runtime = runtimeOver(model, workspace, new Context());
  const echo = countingEcho();
  runtime.offerTools([echo]);
  const config: HooksConfig = {};
  for (const [event, command] of Object.entries(hooks)) {
    config[event as HookEventName] = [{ hooks: [{ type: 'command', command }] }];
  }
  installHooks(runtime, { config, workspace });
  if (rules.length > 0) installPermissionRules(runtime.root, rules);
  return { runtime, model, workspace, echo };
}

/** A hook command that appends its stdin to FILE as one line, then runs `then`. */
const recording = (file: string, then = 'exit 0') => `cat >> ${file}; echo >> ${file}; ${then}`;

function payloads(workspace: string, file: string): Record<string, unknown>[] {
  return readFileSync(join(workspace, file), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function eventsOf<Type extends SessionEvent['type']>(log: SessionLog, type: Type) {
  return log.events.filter((event): event is SessionEvent<Type> => event.type === type);
}

function runs(log: SessionLog): HookRunEvent[] {
  return eventsOf(log, 'hook/run').map((event) => event.data);
}

/** Resolves with the first `hook/run` of `event` in `log`, logged already or to come. */
function hookRun(log: SessionLog, event: HookEventName): Promise<HookRunEvent> {
  const found = runs(log).find((run) => run.event === event);
  if (found) return Promise.resolve(found);
  return new Promise((resolve) => {
    const stop = log.onAppend((appended) => {
      const data = appended.data as HookRunEvent;
      if (appended.type !== 'hook/run' || data.event !== event) return;
      stop();
      resolve(data);
    });
  });
}

test('UserPromptSubmit exit 2 refuses the prompt: the model never sees it, stderr says why', async () => {
  const { runtime, model, workspace } = hooked(
    { default: { reply: 'should not answer' } },
    { UserPromptSubmit: recording('prompt.jsonl', 'echo "no secrets here" >&2; exit 2') },
  );
  const handle = runtime.start();
  const outcome = await handle.agent.prompt('tell me the secrets');
  assert.equal(outcome.reason, 'error');
  assert.equal(outcome.reason === 'error' && outcome.error.code, 'HOOK_BLOCKED');
  assert.match(
    outcome.reason === 'error' ? outcome.error.message : '',
    /a UserPromptSubmit hook refused the prompt: no secrets here/,
  );
  assert.equal(model.calls.length, 0);
  assert.deepEqual(eventsOf(handle.log, 'user/message'), []);
  const [payload] = payloads(workspace, 'prompt.jsonl');
  assert.deepEqual(payload, {
    session_id: handle.log.header.sessionId,
    transcript_path: handle.log.path,
    cwd: workspace,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'tell me the secrets',
  });
  assert.deepEqual(
    runs(handle.log).map(({ event, exitCode, decision, reason }) => ({
      event,
      exitCode,
      decision,
      reason,
    })),
    [{ event: 'UserPromptSubmit', exitCode: 2, decision: 'block', reason: 'no secrets here' }],
  );
  handle.close();
});

test('SessionStart’s and UserPromptSubmit’s stdout reach the model with the first prompt', async () => {
  const { runtime, model } = hooked(
    { default: { reply: 'ok' } },
    { SessionStart: 'echo "the build is red"', UserPromptSubmit: 'echo "branch: main"' },
  );
  const handle = runtime.start();
  await handle.agent.prompt('what now?');
  assert.deepEqual(
    eventsOf(handle.log, 'user/message').map(({ data }) => [data.source ?? 'human', data.text]),
    [
      ['hook', 'the build is red'],
      ['human', 'what now?'],
      ['hook', 'branch: main'],
    ],
  );
  const seen = JSON.stringify(model.calls[0]?.messages);
  assert.match(seen, /the build is red/);
  assert.match(seen, /branch: main/);
  // SessionStart ran once: the second prompt gets no second copy.
  await handle.agent.prompt('and then?');
  assert.equal(runs(handle.log).filter((run) => run.event === 'SessionStart').length, 1);
  handle.close();
});

test('Stop exit 2 keeps the agent going with the reason; stop_hook_active stops the loop', async () => {
  const { runtime, model, workspace } = hooked(
    { default: { reply: 'finished' } },
    {
      Stop: recording(
        'stop.jsonl',
        `grep -q '"stop_hook_active":false' stop.jsonl && [ "$(wc -l < stop.jsonl)" -eq 1 ] && { echo "run the tests first" >&2; exit 2; }; exit 0`,
      ),
    },
  );
  const handle = runtime.start();
  const outcome = await handle.agent.prompt('do the task');
  assert.equal(outcome.reason, 'completed');
  assert.equal(outcome.steps, 2);
  assert.equal(model.calls.length, 2);
  const steered = eventsOf(handle.log, 'user/message').filter(({ data }) => data.source === 'hook');
  assert.deepEqual(
    steered.map(({ data }) => [data.delivery, data.text]),
    [['steer', 'Stop hook feedback:\nrun the tests first']],
  );
  assert.deepEqual(
    payloads(workspace, 'stop.jsonl').map((payload) => payload.stop_hook_active),
    [false, true],
  );
  assert.deepEqual(
    runs(handle.log).map((run) => run.decision),
    ['block', 'none'],
  );
  handle.close();
});

test('a child runs SubagentStop, not Stop, and no UserPromptSubmit', async () => {
  const { runtime, workspace } = hooked(
    { default: { reply: 'child done' } },
    {
      Stop: recording('stop.jsonl'),
      SubagentStop: recording('subagent-stop.jsonl'),
      UserPromptSubmit: recording('prompt.jsonl'),
    },
  );
  const parent = runtime.start();
  const child = runtime.start({ parentSession: parent.log.header.sessionId, delegationDepth: 1 });
  await child.agent.prompt('child task');
  assert.deepEqual(
    runs(child.log).map((run) => run.event),
    ['SubagentStop'],
  );
  assert.equal(payloads(workspace, 'subagent-stop.jsonl')[0]?.hook_event_name, 'SubagentStop');
  assert.throws(() => readFileSync(join(workspace, 'stop.jsonl')), /ENOENT/);
  assert.throws(() => readFileSync(join(workspace, 'prompt.jsonl')), /ENOENT/);
  child.close();
  parent.close();
});

const echoSteps = (...texts: string[]): ScriptedModelFile => ({
  rules: [
    {
      when: 'go',
      steps: [
        ...texts.map((text) => ({ tools: [{ name: 'echo', arguments: { text } }] })),
        { reply: 'done' },
      ],
    },
  ],
});

test('PreToolUse: a block denies with the reason; approve skips an ask but never a deny rule', async () => {
  const decide = [
    'input=$(cat)',
    `case "$input" in *'"text":"rm'*) echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no rm in echo"}}';;`,
    `*) echo '{"decision":"approve"}';; esac`,
  ].join('\n');
  const { runtime, echo } = hooked(
    echoSteps('ask first', 'deny me', 'rm it'),
    { PreToolUse: decide },
    [
      { tool: 'echo', match: { text: 'ask*' }, action: 'ask' },
      { tool: 'echo', match: { text: 'deny*' }, action: 'deny', reason: 'the rule says no' },
    ],
  );
  const handle = runtime.start();
  await handle.agent.prompt('go');
  const results = eventsOf(handle.log, 'tool/result').map(({ data }) => data.content);
  assert.deepEqual(results, [
    'echo: ask first',
    'echo was denied: denied by the rule says no',
    'echo was denied: a PreToolUse hook blocked it: no rm in echo',
  ]);
  assert.equal(echo.runs, 1);
  assert.deepEqual(
    runs(handle.log).map(({ tool, decision }) => [tool, decision]),
    [
      ['echo', 'approve'],
      ['echo', 'approve'],
      ['echo', 'block'],
    ],
  );
  handle.close();
});

test('PreToolUse ask asks the person; the Notification hook hears of it', async () => {
  const { runtime, workspace, echo } = hooked(echoSteps('hello'), {
    PreToolUse: `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"echo is loud"}}'`,
    Notification: recording('notification.jsonl'),
  });
  const asked: string[] = [];
  runtime.root.provide(permissionAskerKey, {
    ask: async ({ reason }) => {
      asked.push(reason);
      return true;
    },
  });
  const handle = runtime.start();
  const notified = hookRun(handle.log, 'Notification');
  await handle.agent.prompt('go');
  assert.deepEqual(asked, ['a PreToolUse hook asks: echo is loud']);
  assert.equal(echo.runs, 1);
  assert.equal((await notified).decision, 'none');
  const [payload] = payloads(workspace, 'notification.jsonl');
  assert.equal(payload?.hook_event_name, 'Notification');
  assert.equal(payload?.notification_type, 'permission_prompt');
  assert.match(
    String(payload?.message),
    /echo needs approval: a PreToolUse hook asks: echo is loud/,
  );
  handle.close();
});

test('PostToolUse reads tool_input and tool_response; its exit 2 speaks to the model', async () => {
  const { runtime, model, workspace } = hooked(echoSteps('hi'), {
    PostToolUse: recording('post.jsonl', 'echo "the formatter changed it" >&2; exit 2'),
  });
  const handle = runtime.start();
  await handle.agent.prompt('go');
  const [payload] = payloads(workspace, 'post.jsonl');
  assert.equal(payload?.hook_event_name, 'PostToolUse');
  assert.equal(payload?.tool_name, 'echo');
  assert.deepEqual(payload?.tool_input, { text: 'hi' });
  assert.deepEqual(payload?.tool_response, { content: 'echo: hi', is_error: false });
  const [result] = eventsOf(handle.log, 'tool/result');
  assert.equal(
    result?.data.content,
    'echo: hi\n\nPostToolUse hook feedback:\nthe formatter changed it',
  );
  assert.match(JSON.stringify(model.calls[1]?.messages), /the formatter changed it/);
  handle.close();
});

test('PreCompact runs before a manual compaction with its trigger and instructions', async () => {
  const { runtime, workspace } = hooked(echoSteps('one', 'two'), {
    PreCompact: recording('compact.jsonl'),
  });
  const handle = runtime.start();
  await handle.agent.prompt('go');
  await compactAgent(handle, { keepSteps: 1, instructions: 'keep the echoes' });
  const [payload] = payloads(workspace, 'compact.jsonl');
  assert.equal(payload?.hook_event_name, 'PreCompact');
  assert.equal(payload?.trigger, 'manual');
  assert.equal(payload?.custom_instructions, 'keep the echoes');
  const types = handle.log.events.map((event) => event.type);
  assert.ok(
    types.indexOf('hook/run') < types.findIndex((type) => type.startsWith('context/compact')),
    'the hook ran before the compaction was logged',
  );
  handle.close();
});

test('a hook that fails is a warning: the action goes on', async () => {
  const { runtime, echo } = hooked(echoSteps('hi'), {
    PreToolUse: 'echo "script broke" >&2; exit 1',
  });
  const handle = runtime.start();
  await handle.agent.prompt('go');
  assert.equal(echo.runs, 1);
  assert.deepEqual(
    runs(handle.log).map(({ exitCode, decision, reason }) => ({ exitCode, decision, reason })),
    [{ exitCode: 1, decision: 'warning', reason: 'script broke' }],
  );
  handle.close();
});
