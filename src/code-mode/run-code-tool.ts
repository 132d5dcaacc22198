/**
 * `run_code {code}`: runs one program on the isolated engine with the agent's SDK tools as
 * `tools.NAME(args)`; every inner call passes the agent's whole tool pipeline (see
 * inner-calls.ts). The result is the program's console output and return value, capped; a
 * program that throws or hits a limit is an error result. It must never give a program anything
 * but the tools the SDK describes, and never return before every inner call is logged as ended.
 */

import { assertNever, LoomError, type LoomErrorCode } from '../base/errors.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { SessionEventMap } from '../core/session-events.js';
import type { SessionLog } from '../core/session-log.js';
import type { ToolDefinition, ToolExecution, ToolOutput } from '../core/tool-contract.js';
import { type CodeModeLimits, RUN_CODE_TOOL } from './contract.js';
import { InnerCalls } from './inner-calls.js';
import type { ProgramOutcome, ProgramRunner, ProgramStop } from './program-contract.js';

/** Extra time the pipeline gives `run_code` past the program's own limit, so that limit ends it. */
const PIPELINE_GRACE_MS = 10_000;

/** `{code}`: what the model sends and permission rules may match. */
export const RUN_CODE_PARAMETERS = Object.freeze({
  type: 'object',
  properties: {
    code: {
      type: 'string',
      minLength: 1,
      description: 'The program: a JavaScript function body (top-level await and return work).',
    },
  },
  required: ['code'],
  additionalProperties: false,
});

export interface RunCodeToolOptions {
  handle: AgentHandle;
  limits: CodeModeLimits;
  runner(): Promise<ProgramRunner>;
  /** The tools the SDK described in the request that made this call. */
  sdkNames(): readonly string[];
}

export function runCodeTool(options: RunCodeToolOptions): ToolDefinition<{ code: string }> {
  const { limits } = options;
  return {
    name: RUN_CODE_TOOL,
    description: [
      'Run a JavaScript program that calls your tools through `tools.NAME(args)`, as declared in',
      'the SDK in your instructions, and returns only what you need. Use it to batch many tool',
      'calls, loop, filter and combine their results in one step. The body may use top-level',
      '`await` and `return`; `console.log` output is returned with the value. Each tool call',
      'returns a Promise of its text result and rejects with an Error when the tool fails. The',
      'program has no network, files or environment except through tools, and is stopped after',
      `${Math.round(limits.timeoutMs / 1000)} s or ${limits.memoryMb} MB.`,
    ].join(' '),
    parameters: RUN_CODE_PARAMETERS,
    timeoutMs: limits.timeoutMs + PIPELINE_GRACE_MS,
    execute: (args, execution) => runCode(options, args.code, execution),
  };
}

async function runCode(
  options: RunCodeToolOptions,
  code: string,
  execution: ToolExecution,
): Promise<ToolOutput> {
  const { handle, limits } = options;
  const runner = await options.runner();
  const inner = new InnerCalls({
    pipeline: handle.tools,
    log: handle.log,
    signal: execution.signal,
    parent: {
      callId: execution.callId,
      token: execution.token,
      agentId: execution.agentId,
      turnId: execution.turnId,
      step: stepOf(handle.log, execution.callId),
      concludeTurn: execution.concludeTurn,
    },
  });
  const outcome = await runner.run({
    code,
    toolNames: options.sdkNames(),
    callTool: (call) => inner.call(call),
    limits,
    signal: execution.signal,
  });
  inner.close(
    outcome.kind === 'returned' ? 'the program ended without waiting for it' : 'the program ended',
  );
  await inner.settled();
  return resultOf(outcome, limits.outputBytes, inner.count);
}

/** The step of the model's call `callId`, from its logged `tool/call`. */
function stepOf(log: SessionLog, callId: string): number {
  const events = log.events;
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (event?.type !== 'tool/call') continue;
    const data = event.data as SessionEventMap['tool/call'];
    if (data.callId === callId && data.parentCallId === undefined) return data.step;
  }
  throw new Error(`${RUN_CODE_TOOL} call ${callId} was not logged as a model's tool call`);
}

function resultOf(outcome: ProgramOutcome, outputBytes: number, calls: number): ToolOutput {
  const consoleText = outcome.console
    ? `Console output:\n${outcome.console.replace(/\n$/, '')}${outcome.truncated ? `\n[console output cut at ${outputBytes} bytes]` : ''}\n\n`
    : '';
  switch (outcome.kind) {
    case 'returned':
      return {
        content: `${consoleText}${consoleText ? 'Returned:\n' : ''}${valueText(outcome.json, Math.max(0, outputBytes - Buffer.byteLength(outcome.console)), outputBytes)}`,
        metadata: { innerCalls: calls },
      };
    case 'threw':
      throw new LoomError('CODE_ERROR', `${consoleText}The program threw: ${outcome.message}`);
    case 'stopped':
      throw new LoomError(STOP_CODES[outcome.reason], `${consoleText}${outcome.message}`);
    default:
      return assertNever(outcome, 'program outcome');
  }
}

const STOP_CODES: Record<ProgramStop, LoomErrorCode> = {
  timeout: 'CODE_TIMEOUT',
  memory: 'CODE_MEMORY',
  aborted: 'ABORTED',
};

/**
 * The return value as the model reads it: a string as itself, anything else as JSON, cut to
 * `room`, what the call's console output left of its `outputBytes` (one cap a call, for both).
 */
function valueText(json: string | undefined, room: number, outputBytes: number): string {
  if (json === undefined) return '(the program returned nothing)';
  const parsed: unknown = JSON.parse(json);
  const text = typeof parsed === 'string' ? parsed : json;
  const bytes = Buffer.byteLength(text);
  if (bytes <= room) return text;
  const kept = Buffer.from(text)
    .subarray(0, room)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${kept}\n[the value was ${bytes} bytes; cut at ${room} (console output and value share ${outputBytes} bytes a call): return less, or summarize in the program]`;
}
