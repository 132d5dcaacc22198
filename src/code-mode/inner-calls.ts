/**
 * The inner calls of one `run_code` call. Each is logged as a `tool/call` with `parentCallId`
 * when the program makes it, runs through the agent's whole tool pipeline, and has its
 * `tool/result` logged in call order; the program gets an answer only once it is logged. Calls
 * of tools that are not concurrency-safe run alone, in call order. Once the enclosing call is
 * aborted or `close` is called, every open call gets its ABORTED result logged at once, so each
 * inner start is paired before the enclosing call's own result. Never rejects.
 */
import type { SessionEventMap } from '../core/session-events.js';
import type { SessionLog } from '../core/session-log.js';
import type { ToolResult } from '../core/tool-contract.js';
import type { ToolPipeline } from '../core/tool-pipeline.js';
import type { ProgramToolAnswer, ProgramToolCall } from './program-contract.js';

export interface EnclosingCall {
  callId: string;
  token: object;
  agentId: string;
  turnId: string;
  step: number;
  concludeTurn: () => void;
}

export interface InnerCallsOptions {
  pipeline: ToolPipeline;
  log: SessionLog;
  parent: EnclosingCall;
  /** The enclosing call's signal: its abort ends every inner call. */
  signal: AbortSignal;
}

interface Entry {
  callId: string;
  name: string;
  arguments: unknown;
  exclusive: boolean;
  result: ToolResult | undefined;
  /** The result is logged (its own, or the ABORTED one `close` wrote). */
  logged: boolean;
  answer: (answer: ProgramToolAnswer) => void;
  /** Settles when its pipeline run has finished; absent until it starts. */
  running?: Promise<void>;
}

export class InnerCalls {
  private readonly controller = new AbortController();
  private readonly entries: Entry[] = [];
  private readonly waiting: Entry[] = [];
  private committed = 0;
  private running = 0;
  private exclusiveRunning = false;
  private closedBecause: string | undefined;
  private readonly stopListening: () => void;

  constructor(private readonly options: InnerCallsOptions) {
    const onAbort = () => this.close('the run_code call was cancelled');
    options.signal.addEventListener('abort', onAbort, { once: true });
    this.stopListening = () => options.signal.removeEventListener('abort', onAbort);
    if (options.signal.aborted) onAbort();
  }

  /** Calls made so far. */
  get count(): number {
    return this.entries.length;
  }

  call(call: ProgramToolCall): Promise<ProgramToolAnswer> {
    if (this.closedBecause !== undefined) {
      return Promise.resolve({
        ok: false,
        message: `cancelled: ${call.name} was not started because ${this.closedBecause}.`,
        code: 'ABORTED',
      });
    }
    const { parent, log, pipeline } = this.options;
    const callId = `${parent.callId}.${this.entries.length + 1}`;
    const data: SessionEventMap['tool/call'] = {
      turnId: parent.turnId,
      step: parent.step,
      callId,
      name: call.name,
      arguments: call.arguments,
      parentCallId: parent.callId,
    };
    log.append('tool/call', data);
    return new Promise((answer) => {
      const entry: Entry = {
        callId,
        name: call.name,
        arguments: call.arguments,
        exclusive: pipeline.lookup(call.name)?.concurrencySafe !== true,
        result: undefined,
        logged: false,
        answer,
      };
      this.entries.push(entry);
      this.waiting.push(entry);
      this.startWhatMayRun();
    });
  }

  /**
   * Aborts every running call and logs an ABORTED result for each call without a logged one,
   * in call order; calls made afterwards are refused. Idempotent.
   */
  close(because: string): void {
    if (this.closedBecause !== undefined) return;
    this.closedBecause = because;
    this.stopListening();
    this.waiting.length = 0;
    this.controller.abort(new Error(because));
    for (const entry of this.entries.slice(this.committed)) {
      if (entry.logged) continue;
      const result: ToolResult = {
        callId: entry.callId,
        name: entry.name,
        content: `cancelled: ${entry.name} was stopped because ${because}.`,
        isError: true,
        errorCode: 'ABORTED',
      };
      this.log(entry, result);
      entry.answer(answerOf(result));
    }
    this.committed = this.entries.length;
  }

  /** Resolves once no inner call is still running in the pipeline. */
  async settled(): Promise<void> {
    await Promise.all(this.entries.map((entry) => entry.running));
  }

  private startWhatMayRun(): void {
    for (let next = this.waiting[0]; next !== undefined; next = this.waiting[0]) {
      const mayStart = next.exclusive ? this.running === 0 : !this.exclusiveRunning;
      if (!mayStart) return;
      this.waiting.shift();
      this.start(next);
    }
  }

  private start(entry: Entry): void {
    const { parent, pipeline } = this.options;
    this.running += 1;
    if (entry.exclusive) this.exclusiveRunning = true;
    const call = { id: entry.callId, name: entry.name, arguments: entry.arguments };
    entry.running = pipeline
      .runInnerCall({
        call,
        agentId: parent.agentId,
        turnId: parent.turnId,
        signal: this.controller.signal,
        concludeTurn: parent.concludeTurn,
        parent: { callId: parent.callId, token: parent.token },
      })
      .then((result) => {
        this.running -= 1;
        if (entry.exclusive) this.exclusiveRunning = false;
        entry.result = result;
        this.commitInOrder();
        if (this.closedBecause === undefined) this.startWhatMayRun();
      });
  }

  private commitInOrder(): void {
    for (let entry = this.entries[this.committed]; entry?.result; ) {
      if (!entry.logged) {
        this.log(entry, entry.result);
        entry.answer(answerOf(entry.result));
      }
      this.committed += 1;
      entry = this.entries[this.committed];
    }
  }

  private log(entry: Entry, result: ToolResult): void {
    const { parent, log } = this.options;
    const data: SessionEventMap['tool/result'] = {
      turnId: parent.turnId,
      step: parent.step,
      callId: entry.callId,
      name: entry.name,
      content: result.content,
      isError: result.isError,
      parentCallId: parent.callId,
    };
    if (result.errorCode) data.errorCode = result.errorCode;
    log.append('tool/result', data);
    entry.logged = true;
  }
}

function answerOf(result: ToolResult): ProgramToolAnswer {
  if (!result.isError) return { ok: true, text: result.content };
  return result.errorCode === undefined
    ? { ok: false, message: result.content }
    : { ok: false, message: result.content, code: result.errorCode };
}
