/**
 * The contract between Code Mode's `run_code` tool and the engine that runs its programs: a
 * program is JavaScript run in QuickJS (WebAssembly) in a worker thread, whose only way out is
 * `tools.NAME(args)`, answered by the host. The engine owns the program's limits and its stop;
 * the caller owns the tool calls (their pipeline, scheduling, logging and cancellation).
 */

export interface ProgramLimits {
  /** Wall time from start to end, awaiting tools included; past it the program is stopped. */
  timeoutMs: number;
  /** The program's heap in MB (QuickJS's own accounting); past it the program is stopped. */
  memoryMb: number;
  /** Console output kept, in UTF-8 bytes; what follows is dropped and `truncated` is set. */
  outputBytes: number;
}

/** How the host answered one `tools.NAME(args)` call. */
export type ProgramToolAnswer =
  | { ok: true; text: string }
  /** The program sees a rejection: an Error with this message and, when given, `code`. */
  | { ok: false; message: string; code?: string };

export interface ProgramToolCall {
  /** 1, 2, … in the order the program made the calls. */
  index: number;
  name: string;
  /** The program's argument, copied out as JSON (a value JSON cannot hold never gets here). */
  arguments: unknown;
}

export interface ProgramRequest {
  /**
   * The program: a script body that may use top-level `await` and `return`. Its globals are the
   * language's own, `tools` (one async function per name of `toolNames`) and `console`
   * (`log`, `info`, `warn`, `error`), nothing else.
   */
  code: string;
  toolNames: readonly string[];
  /** Answers one call; may be called many times at once. Must not reject. */
  callTool(call: ProgramToolCall): Promise<ProgramToolAnswer>;
  limits: ProgramLimits;
  /** Aborting stops the program at once (between two instructions, even in a spin). */
  signal: AbortSignal;
}

export type ProgramStop = 'timeout' | 'memory' | 'aborted';

export type ProgramOutcome =
  | {
      kind: 'returned';
      /** The return value copied out as JSON text; absent when the program returned nothing. */
      json?: string;
      console: string;
      truncated: boolean;
    }
  | {
      kind: 'threw';
      /** The thrown value rendered: `Name: message` and the program's own stack frames. */
      message: string;
      console: string;
      truncated: boolean;
    }
  | {
      kind: 'stopped';
      reason: ProgramStop;
      /** Says which limit or why, naming the limit's value. */
      message: string;
      console: string;
      truncated: boolean;
    };

/** Runs programs; `run` never rejects. A runner may keep warm threads; `close` ends them. */
export interface ProgramRunner {
  run(request: ProgramRequest): Promise<ProgramOutcome>;
  close(): Promise<void>;
}
