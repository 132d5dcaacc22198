/**
 * The wire between the program runner (host thread) and a program thread (`program-worker.ts`):
 * one tagged message type per direction, each carrying the run it belongs to. Everything that
 * crosses is plain data; the realm's values cross as JSON text. Each side reads what it receives
 * through a reader here and drops what does not have the shape: a malformed message is a fault,
 * never an instruction.
 */
import type { ProgramLimits, ProgramOutcome, ProgramToolAnswer } from './program-contract.js';

/** What the host sends a program thread. */
export type HostToProgram =
  | { type: 'run'; run: number; code: string; toolNames: string[]; limits: ProgramLimits }
  | { type: 'answer'; run: number; index: number; answer: ProgramToolAnswer }
  | { type: 'stop'; run: number };

/** What a program thread sends the host. */
export type ProgramToHost =
  /** The thread has QuickJS loaded and a realm prepared. */
  | { type: 'ready' }
  /** The program's realm is ready and its body starts now: its time limit counts from here. */
  | { type: 'started'; run: number }
  /** The program called `tools[name]`; `arguments` is the argument's JSON text. */
  | { type: 'call'; run: number; index: number; name: string; arguments: string }
  | { type: 'done'; run: number; outcome: ProgramOutcome };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function readLimits(value: unknown): ProgramLimits | undefined {
  if (!isRecord(value)) return undefined;
  const { timeoutMs, memoryMb, outputBytes } = value;
  if (typeof timeoutMs !== 'number' || typeof memoryMb !== 'number') return undefined;
  if (!isCount(outputBytes)) return undefined;
  return { timeoutMs, memoryMb, outputBytes };
}

/** A tool answer as the contract types it, or undefined. */
export function readToolAnswer(value: unknown): ProgramToolAnswer | undefined {
  if (!isRecord(value)) return undefined;
  if (value.ok === true && typeof value.text === 'string') return { ok: true, text: value.text };
  if (value.ok !== false || typeof value.message !== 'string') return undefined;
  if (value.code !== undefined && typeof value.code !== 'string') return undefined;
  return value.code === undefined
    ? { ok: false, message: value.message }
    : { ok: false, message: value.message, code: value.code };
}

export function readHostMessage(value: unknown): HostToProgram | undefined {
  if (!isRecord(value) || !isCount(value.run)) return undefined;
  const { run } = value;
  switch (value.type) {
    case 'run': {
      const limits = readLimits(value.limits);
      const { code, toolNames } = value;
      if (typeof code !== 'string' || limits === undefined || !Array.isArray(toolNames)) {
        return undefined;
      }
      if (!toolNames.every((name) => typeof name === 'string')) return undefined;
      return { type: 'run', run, code, toolNames: toolNames as string[], limits };
    }
    case 'answer': {
      const answer = readToolAnswer(value.answer);
      if (!isCount(value.index) || answer === undefined) return undefined;
      return { type: 'answer', run, index: value.index, answer };
    }
    case 'stop':
      return { type: 'stop', run };
    default:
      return undefined;
  }
}

function readOutcome(value: unknown): ProgramOutcome | undefined {
  if (!isRecord(value)) return undefined;
  const { console, truncated } = value;
  if (typeof console !== 'string' || typeof truncated !== 'boolean') return undefined;
  switch (value.kind) {
    case 'returned':
      if (value.json === undefined) return { kind: 'returned', console, truncated };
      if (typeof value.json !== 'string') return undefined;
      return { kind: 'returned', json: value.json, console, truncated };
    case 'threw':
      if (typeof value.message !== 'string') return undefined;
      return { kind: 'threw', message: value.message, console, truncated };
    case 'stopped': {
      const { reason, message } = value;
      if (reason !== 'timeout' && reason !== 'memory' && reason !== 'aborted') return undefined;
      if (typeof message !== 'string') return undefined;
      return { kind: 'stopped', reason, message, console, truncated };
    }
    default:
      return undefined;
  }
}

export function readProgramMessage(value: unknown): ProgramToHost | undefined {
  if (!isRecord(value)) return undefined;
  if (value.type === 'ready') return { type: 'ready' };
  if (!isCount(value.run)) return undefined;
  const { run } = value;
  switch (value.type) {
    case 'started':
      return { type: 'started', run };
    case 'call': {
      const { index, name } = value;
      if (!isCount(index) || typeof name !== 'string' || typeof value.arguments !== 'string') {
        return undefined;
      }
      return { type: 'call', run, index, name, arguments: value.arguments };
    }
    case 'done': {
      const outcome = readOutcome(value.outcome);
      return outcome === undefined ? undefined : { type: 'done', run, outcome };
    }
    default:
      return undefined;
  }
}
