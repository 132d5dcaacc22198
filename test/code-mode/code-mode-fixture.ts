/**
 * Code Mode over a real runtime and agent with a scripted model. The program engine is either
 * the real one or `functionRunner`: a stand-in that runs a test's JavaScript function named by
 * the program text, so tests of the tool layer (inner calls, logging, capture, cancel) control
 * exactly when each call is made and answered.
 */

import type { CodeModeLimits, ToolPresentation } from '../../src/code-mode/contract.js';
import { installCodeMode } from '../../src/code-mode/install.js';
import type {
  ProgramOutcome,
  ProgramRequest,
  ProgramRunner,
} from '../../src/code-mode/program-contract.js';
import { Context } from '../../src/core/context.js';
import type { AgentHandle } from '../../src/core/create-agent.js';
import { AgentRuntime } from '../../src/core/runtime.js';
import type { ToolDefinition } from '../../src/core/tool-contract.js';
import { createScriptedModel, type ScriptedModelClient } from '../../src/llm/scripted-model.js';
import type { ScriptedModelFile } from '../../src/llm/scripted-rules.js';
import { temporaryFolder } from '../helpers/temporary-folder.js';

/** What a stand-in program gets: its tools, and a console that collects lines. */
export interface ProgramScope {
  tools: Record<string, (args: unknown) => Promise<string>>;
  log(line: string): void;
  signal: AbortSignal;
}

export type ProgramFunction = (scope: ProgramScope) => Promise<unknown>;

/** A stand-in engine: `code` names one of `programs`; what it returns or throws is the outcome. */
export function functionRunner(programs: Record<string, ProgramFunction>): ProgramRunner & {
  requests: ProgramRequest[];
} {
  const requests: ProgramRequest[] = [];
  return {
    requests,
    async run(request): Promise<ProgramOutcome> {
      requests.push(request);
      const program = programs[request.code];
      if (!program)
        return {
          kind: 'threw',
          message: `no program ${request.code}`,
          console: '',
          truncated: false,
        };
      let index = 0;
      const lines: string[] = [];
      const tools = Object.fromEntries(
        request.toolNames.map((name) => [
          name,
          async (args: unknown) => {
            index += 1;
            const answer = await request.callTool({ index, name, arguments: args });
            if (answer.ok) return answer.text;
            throw Object.assign(new Error(answer.message), { code: answer.code });
          },
        ]),
      );
      const stopped = new Promise<ProgramOutcome>((resolve) => {
        const stop = () =>
          resolve({
            kind: 'stopped',
            reason: 'aborted',
            message: 'the program was stopped',
            console: lines.join('\n'),
            truncated: false,
          });
        if (request.signal.aborted) stop();
        request.signal.addEventListener('abort', stop, { once: true });
      });
      const ran = program({ tools, log: (line) => lines.push(line), signal: request.signal }).then(
        (value): ProgramOutcome => ({
          kind: 'returned',
          ...(value === undefined ? {} : { json: JSON.stringify(value) }),
          console: lines.join('\n'),
          truncated: false,
        }),
        (error: unknown): ProgramOutcome => ({
          kind: 'threw',
          message: String(error),
          console: lines.join('\n'),
          truncated: false,
        }),
      );
      return Promise.race([ran, stopped]);
    },
    async close() {},
  };
}

export interface CodeModeFixtureOptions {
  model: ScriptedModelFile;
  presentation: ToolPresentation;
  tools?: ToolDefinition[];
  runner?: ProgramRunner;
  limits?: Partial<CodeModeLimits>;
  /** Runs on the root context before the agent starts (permission rules, askers, listeners). */
  prepare?: (root: Context, runtime: AgentRuntime) => void;
}

export interface CodeModeFixture {
  handle: AgentHandle;
  model: ScriptedModelClient;
  runtime: AgentRuntime;
  close(): Promise<void>;
}

export function codeModeFixture(options: CodeModeFixtureOptions): CodeModeFixture {
  const home = temporaryFolder('loom-code-mode-');
  const model = createScriptedModel(options.model, { name: 'test' });
  const root = new Context();
  const runtime = new AgentRuntime({ root, home, cwd: home, resolveModel: () => model });
  if (options.tools) runtime.offerTools(options.tools);
  options.prepare?.(root, runtime);
  const layer = installCodeMode(runtime, {
    presentation: options.presentation,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.runner ? { makeRunner: () => options.runner as ProgramRunner } : {}),
  });
  const handle = runtime.start();
  return {
    handle,
    model,
    runtime,
    async close() {
      handle.close();
      await layer.dispose();
    },
  };
}

/** A scripted model that answers the first request with one `run_code {code}` and then replies with the result. */
export function runCodeModel(code: string): ScriptedModelFile {
  return {
    default: {
      steps: [
        { tools: [{ name: 'run_code', arguments: { code } }] },
        { reply: 'done: {{lastToolResult}}' },
      ],
    },
  };
}
