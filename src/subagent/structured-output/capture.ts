/**
 * Structured output for one agent: a scoped `structured_output` tool whose value commits only
 * when the call's final result succeeds (and, for a call made inside another, such as a
 * `run_code` program's, only when the enclosing call's result succeeds as well), a guard that makes delivery final, bounded in-turn
 * retries of invalid arguments, and a turn rule that makes a missing or invalid answer an error.
 * Registers on the agent's own scoped parts only; must never report a value whose call failed.
 */

import { assertNever, LoomError, UserError } from '../../base/errors.js';
import {
  agentTurnStopping,
  type TurnEnding,
  type TurnStoppingInput,
} from '../../core/agent-hooks.js';
import type { Disposer } from '../../core/context.js';
import type { AgentHandle } from '../../core/create-agent.js';
import { validateToolArguments } from '../../core/tool-arguments.js';
import type { ToolDefinition, ToolExecution } from '../../core/tool-contract.js';
import {
  type GuardVerdict,
  type ToolCallRequest,
  type ToolObservation,
  toolResultObserved,
} from '../../core/tool-pipeline.js';
import type { JsonSchema } from '../../llm/contract.js';
import {
  type CaptureShape,
  captureDescription,
  captureInstructions,
  captureShape,
  STRUCTURED_OUTPUT_SECTION,
  STRUCTURED_OUTPUT_SECTION_ORDER,
  STRUCTURED_OUTPUT_TOOL,
} from './capture-instructions.js';
import { assertSupportedSchema } from './output-schema.js';

export { STRUCTURED_OUTPUT_SECTION, STRUCTURED_OUTPUT_TOOL } from './capture-instructions.js';

export const DEFAULT_MAX_ATTEMPTS = 5;
const OWNER = 'structured-output';

export interface StructuredOutputOptions {
  /**
   * Calls with invalid arguments allowed before the capture gives up and concludes the turn.
   * A positive integer; default 5.
   */
  maxAttempts?: number;
}

export type StructuredOutcome =
  | { kind: 'captured'; value: unknown }
  | { kind: 'missing' }
  | { kind: 'exhausted'; problems: string };

export interface StructuredCapture {
  /** What the agent has delivered; still readable after `dispose()`. */
  outcome(): StructuredOutcome;
  /** Removes every registration; idempotent. Also runs when the handle closes. */
  dispose(): void;
}

export type StructuredOutputErrorCode = 'NO_STRUCTURED_OUTPUT' | 'INVALID_STRUCTURED_OUTPUT';

declare module '../../base/errors.js' {
  interface LoomErrorCodeMap extends Record<StructuredOutputErrorCode, true> {}
}

type Phase =
  | { kind: 'open' }
  | { kind: 'pending' }
  | { kind: 'committed'; value: unknown }
  | { kind: 'exhausted'; problems: string };

/**
 * Throws `UNSUPPORTED_SCHEMA` for a schema no route could send as it means, `INVALID_ARGUMENT` for a bad
 * `maxAttempts` or a scope that already has the section, `DUPLICATE_TOOL` when it already has
 * the tool; a failed attach leaves nothing registered.
 */
export function attachStructuredOutput(
  handle: AgentHandle,
  schema: JsonSchema,
  options: StructuredOutputOptions = {},
): StructuredCapture {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `maxAttempts must be a positive integer, got ${String(maxAttempts)}`,
    );
  }
  const attachment = new CaptureAttachment(handle, assertSupportedSchema(schema), maxAttempts);
  handle.onClose(() => attachment.dispose());
  return attachment;
}

class CaptureAttachment implements StructuredCapture {
  private readonly agentId: string;
  private readonly shape: CaptureShape;
  private readonly tool: ToolDefinition;
  private readonly staged = new WeakMap<ToolExecution, { value: unknown }>();
  /**
   * A value captured inside another call (a `run_code` program) whose own call succeeded: it
   * commits only when the enclosing call, known by its opaque token, succeeds too.
   */
  private awaitingEnclosing: { token: object; value: unknown } | undefined;
  private readonly disposers: Disposer[] = [];
  private phase: Phase = { kind: 'open' };
  private failedAttempts = 0;
  /** Why a staged answer was discarded, reported if the turn then ends without one. */
  private discardedBecause: string | undefined;

  constructor(
    handle: AgentHandle,
    schema: JsonSchema,
    private readonly maxAttempts: number,
  ) {
    this.agentId = handle.agent.id;
    this.shape = captureShape(schema);
    this.tool = {
      name: STRUCTURED_OUTPUT_TOOL,
      description: captureDescription(this.shape.wrapped),
      parameters: this.shape.parameters,
      execute: (args: unknown, execution) => this.stage(args, execution),
    };
    const registrations: Array<() => Disposer> = [
      () => handle.tools.register(this.tool),
      () => handle.tools.guard((request) => this.guard(request)),
      () => handle.context.on(toolResultObserved, (observation) => this.observe(observation)),
      () =>
        handle.prompt.section({
          id: STRUCTURED_OUTPUT_SECTION,
          order: STRUCTURED_OUTPUT_SECTION_ORDER,
          text: captureInstructions(this.shape.wrapped),
        }),
      () =>
        handle.prompt.protect({
          section: STRUCTURED_OUTPUT_SECTION,
          tool: STRUCTURED_OUTPUT_TOOL,
          owner: OWNER,
        }),
      () =>
        handle.context.handle(agentTurnStopping, (input, ending) => this.stopping(input, ending)),
    ];
    try {
      for (const register of registrations) this.disposers.push(register());
    } catch (error) {
      this.dispose();
      throw error;
    }
  }

  outcome(): StructuredOutcome {
    const { phase } = this;
    switch (phase.kind) {
      case 'committed':
        return { kind: 'captured', value: phase.value };
      case 'exhausted':
        return { kind: 'exhausted', problems: phase.problems };
      case 'open':
      case 'pending':
        return { kind: 'missing' };
      default:
        return assertNever(phase, 'capture phase');
    }
  }

  dispose(): void {
    for (const dispose of this.disposers.splice(0).reverse()) dispose();
  }

  /** The tool body: re-checks the arguments it was handed, then stages; never commits. */
  private stage(args: unknown, execution: ToolExecution): string {
    if (this.phase.kind !== 'open') {
      throw new LoomError('TOOL_DENIED', 'the structured output was already delivered');
    }
    const check = validateToolArguments(this.tool, args);
    if (!check.ok) throw new LoomError('TOOL_ARGUMENTS', invalidArguments(check.problems));
    const answer = this.shape.wrapped ? (args as { value: unknown }).value : args;
    this.staged.set(execution, { value: structuredClone(answer) });
    this.phase = { kind: 'pending' };
    execution.concludeTurn();
    return 'Your answer was received. Your work is done: stop here.';
  }

  private guard(request: ToolCallRequest): GuardVerdict {
    if (request.agentId !== this.agentId) return undefined;
    switch (this.phase.kind) {
      case 'open':
        return undefined;
      case 'pending':
      case 'committed':
        return { deny: 'the structured output was already delivered; nothing may run after it' };
      case 'exhausted':
        return {
          deny: `${STRUCTURED_OUTPUT_TOOL} was called with invalid arguments ${this.failedAttempts} times and the turn is ending`,
        };
      default:
        return assertNever(this.phase, 'capture phase');
    }
  }

  private observe({ execution, result }: ToolObservation): void {
    if (execution.agentId !== this.agentId) return;
    const staged = this.staged.get(execution);
    if (staged) {
      this.staged.delete(execution);
      if (result.isError) {
        this.phase = { kind: 'open' };
        this.discardedBecause = result.content;
      } else if (execution.parentToken !== undefined) {
        this.awaitingEnclosing = { token: execution.parentToken, value: staged.value };
      } else {
        this.phase = { kind: 'committed', value: staged.value };
      }
      return;
    }
    const awaiting = this.awaitingEnclosing;
    if (awaiting !== undefined && execution.token === awaiting.token) {
      this.awaitingEnclosing = undefined;
      if (result.isError) {
        this.phase = { kind: 'open' };
        this.discardedBecause = `the ${result.name} call it was made in failed: ${result.content}`;
      } else {
        this.phase = { kind: 'committed', value: awaiting.value };
      }
      return;
    }
    if (result.name !== STRUCTURED_OUTPUT_TOOL || result.errorCode !== 'TOOL_ARGUMENTS') return;
    if (this.phase.kind !== 'open') return;
    this.failedAttempts += 1;
    if (this.failedAttempts < this.maxAttempts) return;
    this.phase = { kind: 'exhausted', problems: problemLines(result.content) };
    execution.concludeTurn();
  }

  private stopping(input: TurnStoppingInput, ending: TurnEnding): TurnEnding {
    if (input.agentId !== this.agentId) return ending;
    const discardedBecause = this.discardedBecause;
    this.discardedBecause = undefined;
    if (ending.reason !== 'completed') return ending;
    switch (this.phase.kind) {
      case 'committed':
        return ending;
      case 'exhausted':
        return failure(
          'INVALID_STRUCTURED_OUTPUT',
          `the child called ${STRUCTURED_OUTPUT_TOOL} with invalid arguments ${this.failedAttempts} times; the last problems:\n${this.phase.problems}`,
        );
      case 'open':
      case 'pending':
        return failure(
          'NO_STRUCTURED_OUTPUT',
          discardedBecause === undefined
            ? `the child finished without calling ${STRUCTURED_OUTPUT_TOOL}`
            : `the child's ${STRUCTURED_OUTPUT_TOOL} call failed, so nothing was captured: ${discardedBecause}`,
        );
      default:
        return assertNever(this.phase, 'capture phase');
    }
  }
}

function failure(code: StructuredOutputErrorCode, message: string): TurnEnding {
  return { reason: 'error', error: { code, message } };
}

function invalidArguments(problems: string[]): string {
  const lines = problems.map((problem) => `- ${problem}`).join('\n');
  return `Invalid arguments for ${STRUCTURED_OUTPUT_TOOL}:\n${lines}\nFix the arguments and call the tool again.`;
}

/** The `- problem` lines of an invalid-arguments result, without the advice to the model. */
function problemLines(content: string): string {
  const lines = content.split('\n').filter((line) => line.startsWith('- '));
  return lines.length > 0 ? lines.join('\n') : content;
}
