/**
 * `loom run [prompt]`: one headless turn. Streams the answer (or, with --json, every session
 * event as NDJSON) and exits 0 when the turn completed, 1 on error, 130 when interrupted. An
 * event reaches stdout only after it is on disk, so what a watcher saw survives a crash.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { installPermissionRules } from '../config/permissions.js';
import type { TurnOutcome } from '../core/agent-hooks.js';
import { createAgent } from '../core/create-agent.js';
import { UserError } from '../core/errors.js';
import { loomHome } from '../core/home.js';
import type { SessionEvent } from '../core/session-events.js';
import { createModelClient, defaultModelSpec } from '../llm/providers.js';
import { builtinTools } from '../tools/index.js';
import { plainRenderer } from './render-plain.js';

export interface RunOptions {
  model?: string;
  session?: string;
  json?: boolean;
  cwd?: string;
  maxSteps?: string;
}

export const NO_MODEL_HELP = [
  'no model is configured.',
  'Set DEEPSEEK_API_KEY (or OPENAI_API_KEY / ANTHROPIC_API_KEY with --model openai:MODEL or anthropic:MODEL),',
  'or run offline with --model scripted:FILE (see examples/).',
].join('\n');

async function readPrompt(argument: string | undefined): Promise<string> {
  if (argument !== undefined && argument.trim().length > 0) return argument;
  if (process.stdin.isTTY)
    throw new UserError(
      'INVALID_ARGUMENT',
      'no prompt: pass it as an argument or on standard input',
    );
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text.length === 0)
    throw new UserError('INVALID_ARGUMENT', 'no prompt: standard input was empty');
  return text;
}

function parseMaxSteps(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const steps = Number(value);
  if (!Number.isInteger(steps) || steps < 1) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `--max-steps must be a whole number of at least 1 (got ${value})`,
    );
  }
  return steps;
}

function resolveWorkspace(cwd: string | undefined): string {
  const folder = resolve(cwd ?? process.cwd());
  const stat = statSync(folder, { throwIfNoEntry: false });
  if (!stat?.isDirectory())
    throw new UserError('INVALID_ARGUMENT', `--cwd ${folder} is not a folder`);
  return folder;
}

export function exitCodeOf(outcome: TurnOutcome): number {
  if (outcome.reason === 'completed') return 0;
  if (outcome.reason === 'aborted') return 130;
  return 1;
}

export async function runCommand(
  argument: string | undefined,
  options: RunOptions,
): Promise<number> {
  const cwd = resolveWorkspace(options.cwd);
  const home = loomHome();
  const config = loadConfig(home, cwd);
  const maxSteps = parseMaxSteps(options.maxSteps) ?? config.agent?.maxSteps;
  const spec = options.model ?? config.model ?? defaultModelSpec(process.env);
  if (!spec) throw new UserError('MODEL_SPEC', NO_MODEL_HELP);
  const model = createModelClient(spec, {
    env: process.env,
    ...(config.models ? { routes: config.models } : {}),
    ...(config.retry ? { retry: config.retry } : {}),
  });
  const prompt = await readPrompt(argument);
  const extraRoots = (config.tools?.extraRoots ?? []).map((root) => resolve(cwd, root));
  const handle = createAgent({
    home,
    model,
    cwd,
    tools: builtinTools({
      workspace: { root: cwd, extraRoots },
      ...(config.tools?.bashTimeoutMs ? { bashTimeoutMs: config.tools.bashTimeoutMs } : {}),
    }),
    ...(options.session ? { sessionId: options.session } : {}),
    ...(maxSteps ? { limits: { maxSteps } } : {}),
  });
  if (config.permissions) installPermissionRules(handle.context, config.permissions);
  const sessionId = handle.log.header.sessionId;
  const output = options.json ? jsonPrinter(sessionId, () => handle.log.flush()) : undefined;
  const renderer = options.json ? undefined : plainRenderer(process.stdout, process.stderr);
  handle.log.onAppend((event) => (output ? output.push(event) : renderer?.render(event)));

  let interrupts = 0;
  const onInterrupt = () => {
    interrupts += 1;
    if (interrupts > 1) {
      handle.close();
      process.exit(130);
    }
    handle.agent.cancel('interrupted by the user');
  };
  process.on('SIGINT', onInterrupt);
  const outcome = await handle.agent.prompt(prompt);
  process.off('SIGINT', onInterrupt);
  output?.drain();
  renderer?.finish();
  if (output && outcome.error) process.stderr.write(`error: ${outcome.error.message}\n`);
  handle.close();
  return exitCodeOf(outcome);
}

/** Buffers NDJSON lines and writes them only after the log has flushed them to disk. */
function jsonPrinter(sessionId: string, flushLog: () => void) {
  let lines: string[] = [];
  let scheduled = false;
  const drain = () => {
    scheduled = false;
    if (lines.length === 0) return;
    flushLog();
    process.stdout.write(lines.join(''));
    lines = [];
  };
  return {
    push(event: SessionEvent) {
      lines.push(
        `${JSON.stringify({ sessionId, type: event.type, seq: event.seq, time: event.time, data: event.data })}\n`,
      );
      if (!scheduled) {
        scheduled = true;
        setImmediate(drain);
      }
    },
    drain,
  };
}
