/**
 * Runs one hook command: `sh -c COMMAND` in the workspace, in its own process group, the event's
 * JSON on its stdin, stdout and stderr kept apart (each cut at a limit). Its time limit or its
 * signal kills the whole group. The environment is Loom's without any credential (the scope's
 * registered names and credential-like ones, as for `bash`), plus `CLAUDE_PROJECT_DIR`, which
 * Claude Code's hook commands use to find their scripts. Never rejects.
 */
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { errorMessage } from '../base/errors.js';
import { type CredentialVariables, looksLikeCredential } from '../core/credential-variables.js';

/** Characters of stdout or stderr kept (the head); the rest is dropped. */
const OUTPUT_LIMIT = 64 * 1024;
/** How long to wait for the pipes after the shell ended (a background child may hold them). */
const DRAIN_GRACE_MS = 200;

export interface HookProcessRequest {
  command: string;
  /** The event as JSON text. */
  input: string;
  cwd: string;
  timeoutMs: number;
  /** Kill the hook when any aborts (its agent closed, the tool call was cancelled). */
  signals?: readonly AbortSignal[];
  /** The environment to start from; Loom's own by default. */
  base?: NodeJS.ProcessEnv;
  credentials: CredentialVariables | undefined;
}

export interface HookProcessResult {
  /** Null when the shell was killed or never started. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
  /** Aborted by one of its signals before it ended. */
  cancelled: boolean;
  /** Why the shell could not start. */
  startError?: string;
}

/** Loom's environment without credentials, and the project folder Claude Code's hooks read. */
export function hookEnvironment(
  base: NodeJS.ProcessEnv,
  credentials: CredentialVariables | undefined,
  projectDirectory: string,
): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const hidden = credentials ? credentials.isCredential(name) : looksLikeCredential(name);
    if (!hidden) environment[name] = value;
  }
  environment.CLAUDE_PROJECT_DIR = projectDirectory;
  return environment;
}

export function runHookProcess(request: HookProcessRequest): Promise<HookProcessResult> {
  const started = Date.now();
  const signals = request.signals ?? [];
  return new Promise((resolve) => {
    const output = { stdout: '', stderr: '' };
    let timedOut = false;
    let cancelled = false;
    let exitCode: number | null = null;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const child = spawn('/bin/sh', ['-c', request.command], {
      cwd: request.cwd,
      env: hookEnvironment(request.base ?? process.env, request.credentials, request.cwd),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    };
    const finish = (startError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      for (const signal of signals) signal.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        exitCode,
        stdout: output.stdout,
        stderr: output.stderr,
        ms: Date.now() - started,
        timedOut,
        cancelled,
        ...(startError !== undefined ? { startError } : {}),
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, request.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      killGroup();
    };
    for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true });
    if (signals.some((signal) => signal.aborted)) onAbort();
    collect(child.stdout, (text) => {
      output.stdout = keep(output.stdout, text);
    });
    collect(child.stderr, (text) => {
      output.stderr = keep(output.stderr, text);
    });
    // A hook that never reads its stdin closes the pipe early; that is not its failure.
    child.stdin.on('error', () => {});
    child.stdin.end(request.input);
    child.on('error', (error) => finish(`could not run /bin/sh: ${errorMessage(error)}`));
    child.on('exit', (code) => {
      exitCode = code;
      drainTimer = setTimeout(() => finish(), DRAIN_GRACE_MS);
    });
    child.on('close', () => finish());
  });
}

function collect(stream: NodeJS.ReadableStream, add: (text: string) => void): void {
  const decoder = new StringDecoder('utf8');
  stream.on('data', (chunk: Buffer) => add(decoder.write(chunk)));
  stream.on('end', () => add(decoder.end()));
  stream.on('error', () => {});
}

function keep(kept: string, text: string): string {
  if (kept.length >= OUTPUT_LIMIT) return kept;
  return (kept + text).slice(0, OUTPUT_LIMIT);
}
