/**
 * The worker side of Code Mode's program engine: one program at a time, each in a fresh QuickJS
 * realm (`program-realm.ts`) prepared before its run arrives. The program's only way out is the
 * prelude's host function; only this module posts to the port, and only calls, the result and
 * nothing the program shaped but JSON text. The interrupt handler stops a spin for the time
 * limit, the memory cap or a `stop` it reads from the port synchronously.
 */
import { performance } from 'node:perf_hooks';
import type { QuickJSHandle } from 'quickjs-emscripten';
import type { CompiledWasm } from '../core/quickjs-wasm.js';
import type { ProgramLimits, ProgramOutcome, ProgramStop } from './program-contract.js';
import { type HostToProgram, type ProgramToHost, readHostMessage } from './program-protocol.js';
import { exerciseRealm, type ProgramRealm, prepareRealm } from './program-realm.js';

/** The file name a program is compiled under; its stack frames name it. */
export const PROGRAM_FILENAME = 'program.js';

/** The program's body goes between these, on the first line (columns there are shifted back). */
const BODY_START = '(async () => {';
const BODY_END = '\n})()';

/** How often (ms) a running program's interrupt handler reads the port for a `stop`. */
const POLL_MS = 2;

/** Longer renderings of a thrown value are cut to this many characters. */
const RENDERED_MAXIMUM_LENGTH = 4000;

/** The thread's port: posting, reading at once (during a spin), and listening when idle. */
export interface ProgramPort {
  post(message: ProgramToHost): void;
  receive(): { message: unknown } | undefined;
  onMessage(listener: (message: unknown) => void): void;
}

interface Binding {
  run: ProgramRun | undefined;
}

interface Prepared {
  realm: ProgramRealm;
  binding: Binding;
}

/**
 * Serves runs on `port`: prepares a realm now, posts `ready`, and runs each `run` it is sent.
 * Realms instantiate `quickJs`, the module the host compiled, when it is given.
 */
export function serveProgramThread(port: ProgramPort, quickJs?: CompiledWasm): void {
  new ProgramThread(port, quickJs).listen();
}

/** A throwaway realm runs a throwaway program first; a failure here shows at the first run. */
async function warmedUp(quickJs: CompiledWasm | undefined): Promise<void> {
  try {
    exerciseRealm(
      await prepareRealm({ hostCall: () => '0', shouldInterrupt: () => false }, quickJs),
    );
  } catch {}
}

class ProgramThread {
  private next: Promise<Prepared>;
  private current: ProgramRun | undefined;
  /** A run whose realm is still being prepared; a `stop` for it is remembered. */
  private starting: { run: number; stopped: boolean } | undefined;

  constructor(
    private readonly port: ProgramPort,
    private readonly quickJs: CompiledWasm | undefined,
  ) {
    this.next = warmedUp(quickJs).then(() => this.prepare());
    this.next.catch(() => {});
    this.next.then(
      () => port.post({ type: 'ready' }),
      () => port.post({ type: 'ready' }),
    );
  }

  listen(): void {
    this.port.onMessage((raw) => {
      const message = readHostMessage(raw);
      if (message) this.handle(message);
    });
  }

  private prepare(): Promise<Prepared> {
    const binding: Binding = { run: undefined };
    const prepared = prepareRealm(
      {
        hostCall: (op, payload) => binding.run?.hostCall(op, payload) ?? '0',
        shouldInterrupt: () => binding.run?.shouldInterrupt() ?? false,
      },
      this.quickJs,
    ).then((realm) => ({ realm, binding }));
    prepared.catch(() => {});
    return prepared;
  }

  private handle(message: HostToProgram): void {
    if (message.type === 'run') {
      void this.start(message);
      return;
    }
    if (this.starting?.run === message.run && message.type === 'stop') {
      this.starting.stopped = true;
      return;
    }
    if (this.current?.id === message.run) this.current.receive(message);
  }

  private async start(message: Extract<HostToProgram, { type: 'run' }>): Promise<void> {
    const empty = { console: '', truncated: false };
    if (this.current || this.starting) {
      this.port.post({
        type: 'done',
        run: message.run,
        outcome: {
          kind: 'threw',
          message: 'the program thread is busy with another run',
          ...empty,
        },
      });
      return;
    }
    this.starting = { run: message.run, stopped: false };
    let prepared: Prepared;
    try {
      prepared = await this.next;
    } catch (error) {
      this.starting = undefined;
      this.next = this.prepare();
      const reason = error instanceof Error ? error.message : String(error);
      this.port.post({
        type: 'done',
        run: message.run,
        outcome: {
          kind: 'threw',
          message: `the program engine could not load QuickJS: ${reason}`,
          ...empty,
        },
      });
      return;
    }
    const stopped = this.starting.stopped;
    this.starting = undefined;
    const run = new ProgramRun(message.run, message.limits, prepared.realm, this.port, () => {
      if (this.current === run) this.current = undefined;
      this.next = this.prepare();
    });
    this.current = run;
    prepared.binding.run = run;
    if (stopped) run.stop('aborted');
    else run.start(message.code, message.toolNames);
  }
}

/** One program in its realm, from its start to the one `done` it posts. */
class ProgramRun {
  private readonly deadline: number;
  private stopReason: ProgramStop | undefined;
  private finished = false;
  private output = '';
  private outputBytes = 0;
  private truncated = false;
  private lastIndex = 0;
  private nextPoll = 0;
  private inside = 0;
  private readonly inbox: HostToProgram[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The line of the wrapper's end, whose frames are the engine's, not the program's. */
  private wrapperLine = 0;

  constructor(
    readonly id: number,
    private readonly limits: ProgramLimits,
    private readonly realm: ProgramRealm,
    private readonly port: ProgramPort,
    private readonly onFinish: () => void,
  ) {
    this.deadline = performance.now() + limits.timeoutMs;
  }

  start(code: string, toolNames: readonly string[]): void {
    const { context } = this.realm;
    this.realm.capMemory(this.limits.memoryMb);
    this.wrapperLine = code.split(/\r\n|[\n\r\u2028\u2029]/).length + 1;
    this.timer = setTimeout(() => this.stop('timeout'), this.limits.timeoutMs);
    this.guard(() => {
      this.callInternal('setup', [JSON.stringify(toolNames)]);
      if (this.checkStopped()) return;
      const result = this.enter(() =>
        context.evalCode(`${BODY_START}${code}${BODY_END}`, PROGRAM_FILENAME),
      );
      if (this.checkStopped()) {
        if (result.error) result.error.dispose();
        else result.value.dispose();
        return;
      }
      if (result.error) {
        this.finish({ kind: 'threw', message: this.renderHandle(result.error) });
        return;
      }
      this.callInternal('watch', [result.value]);
      result.value.dispose();
      this.pump();
    });
    this.afterSlice();
  }

  /** A message for this run, arriving while the program is idle. */
  receive(message: HostToProgram): void {
    if (message.type === 'stop') {
      this.stop('aborted');
      return;
    }
    this.inbox.push(message);
    this.afterSlice();
  }

  /** Stops the program for `reason`: at once when idle, at the next interrupt check otherwise. */
  stop(reason: ProgramStop): void {
    if (this.finished) return;
    this.stopReason ??= reason;
    if (this.inside === 0) this.checkStopped();
  }

  /** The realm's one host function; it never throws and always answers text. */
  hostCall(op: string, payload: string): string {
    if (this.finished || this.stopReason !== undefined) return '0';
    if (this.realm.overMemory()) {
      this.stopReason = 'memory';
      return '0';
    }
    switch (op) {
      case 'call': {
        const [name, text] = JSON.parse(payload) as [string, string];
        this.lastIndex += 1;
        this.port.post({
          type: 'call',
          run: this.id,
          index: this.lastIndex,
          name,
          arguments: text,
        });
        return String(this.lastIndex);
      }
      case 'console':
        this.write(payload);
        return this.truncated ? 'full' : '';
      case 'returned':
        this.finish(payload === '' ? { kind: 'returned' } : { kind: 'returned', json: payload });
        return '0';
      case 'failed':
        this.finish({ kind: 'threw', message: renderForReader(payload, this.wrapperLine) });
        return '0';
      default:
        return '0';
    }
  }

  /** QuickJS asks this regularly while the program runs: true stops it, uncatchably. */
  shouldInterrupt(): boolean {
    if (this.finished || this.stopReason !== undefined) return true;
    if (this.realm.overMemory()) {
      this.stopReason = 'memory';
      return true;
    }
    const now = performance.now();
    if (now >= this.deadline) {
      this.stopReason = 'timeout';
      return true;
    }
    if (now >= this.nextPoll) {
      this.nextPoll = now + POLL_MS;
      this.poll();
    }
    return this.stopReason !== undefined;
  }

  /** Takes what the host sent meanwhile: a `stop` stops the program, answers wait for the slice's end. */
  private poll(): void {
    for (;;) {
      const received = this.port.receive();
      if (received === undefined) return;
      const message = readHostMessage(received.message);
      if (message === undefined || message.run !== this.id) continue;
      if (message.type === 'stop') this.stopReason ??= 'aborted';
      else this.inbox.push(message);
    }
  }

  private write(text: string): void {
    if (this.truncated) return;
    const bytes = Buffer.byteLength(text);
    const room = this.limits.outputBytes - this.outputBytes;
    if (bytes <= room) {
      this.output += text;
      this.outputBytes += bytes;
      return;
    }
    const encoded = Buffer.from(text);
    let end = room;
    // Never cut a character in two: back off to the start of the one the cut falls in.
    while (end > 0 && (encoded[end] ?? 0) >> 6 === 0b10) end -= 1;
    this.output += encoded.subarray(0, end).toString('utf8');
    this.outputBytes += end;
    this.truncated = true;
  }

  /** The answers taken while the program ran, settled now that it has yielded, then its jobs. */
  private afterSlice(): void {
    if (this.inside > 0 || this.finished) return;
    if (this.inbox.length === 0) {
      this.checkStopped();
      return;
    }
    this.guard(() => {
      while (this.inbox.length > 0 && !this.finished) {
        const message = this.inbox.shift();
        if (message?.type !== 'answer' || message.index > this.lastIndex) continue;
        const index = this.realm.context.newNumber(message.index);
        try {
          this.callInternal('settle', [index, JSON.stringify(message.answer)]);
        } finally {
          index.dispose();
        }
        if (this.checkStopped()) return;
      }
      this.pump();
    });
    if (this.inbox.length > 0) this.afterSlice();
  }

  /** Runs the program's pending jobs (its continuations) until none is left. */
  private pump(): void {
    if (this.finished) return;
    const result = this.enter(() => this.realm.runtime.executePendingJobs(-1));
    if (this.checkStopped()) {
      if (result.error) result.error.dispose();
      return;
    }
    if (result.error) this.finish({ kind: 'threw', message: this.renderHandle(result.error) });
  }

  /** Calls one of the prelude's internals; a failure the program caused ends the run. */
  private callInternal(
    name: 'setup' | 'settle' | 'watch',
    args: Array<QuickJSHandle | string>,
  ): void {
    const { context, internals } = this.realm;
    const made: QuickJSHandle[] = [];
    try {
      const handles = args.map((arg) => {
        if (typeof arg !== 'string') return arg;
        const handle = context.newString(arg);
        made.push(handle);
        return handle;
      });
      const method = context.getProp(internals, name);
      made.push(method);
      const result = this.enter(() => context.callFunction(method, internals, ...handles));
      if (this.checkStopped()) {
        if (result.error) result.error.dispose();
        else result.value.dispose();
        return;
      }
      if (result.error) {
        this.finish({ kind: 'threw', message: this.renderHandle(result.error) });
        return;
      }
      result.value.dispose();
    } finally {
      for (const handle of made) handle.dispose();
    }
  }

  /** Ends the run as stopped when a stop or the memory cap was noticed; true once finished. */
  private checkStopped(): boolean {
    if (this.finished) return true;
    if (this.realm.overMemory()) this.stopReason = 'memory';
    if (this.stopReason === undefined) return false;
    this.finish({
      kind: 'stopped',
      reason: this.stopReason,
      message: this.stopMessage(this.stopReason),
    });
    return true;
  }

  private stopMessage(reason: ProgramStop): string {
    switch (reason) {
      case 'memory':
        return `the program used more than its memory limit of ${this.limits.memoryMb} MB and was stopped`;
      case 'aborted':
        return 'the program was cancelled and stopped';
      case 'timeout':
        return `the program ran longer than its time limit of ${this.limits.timeoutMs} ms and was stopped`;
    }
  }

  private finish(
    ending:
      | { kind: 'returned'; json?: string }
      | { kind: 'threw'; message: string }
      | { kind: 'stopped'; reason: ProgramStop; message: string },
  ): void {
    if (this.finished) return;
    const memory = ending.kind !== 'stopped' && this.realm.overMemory();
    this.finished = true;
    clearTimeout(this.timer);
    const tail = { console: this.output, truncated: this.truncated };
    const outcome: ProgramOutcome = memory
      ? { kind: 'stopped', reason: 'memory', message: this.stopMessage('memory'), ...tail }
      : { ...ending, ...tail };
    this.port.post({ type: 'done', run: this.id, outcome });
    this.onFinish();
  }

  /** Runs an action that enters QuickJS; a fault of the engine itself ends the run. */
  private guard(action: () => void): void {
    try {
      action();
    } catch (error) {
      if (this.checkStopped()) return;
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.finish({ kind: 'threw', message: `the program engine failed: ${reason}` });
    }
  }

  private enter<Result>(action: () => Result): Result {
    this.inside += 1;
    try {
      return action();
    } finally {
      this.inside -= 1;
    }
  }

  /** A thrown value's handle rendered for the reader; the handle is disposed. */
  private renderHandle(handle: QuickJSHandle): string {
    try {
      const dumped: unknown = this.realm.context.dump(handle);
      if (typeof dumped === 'object' && dumped !== null) {
        const { name, message, stack } = dumped as Record<string, unknown>;
        const head = `${typeof name === 'string' ? name : 'Error'}: ${typeof message === 'string' ? message : ''}`;
        return renderForReader(
          typeof stack === 'string' && stack ? `${head}\n${stack}` : head,
          this.wrapperLine,
        );
      }
      return renderForReader(String(dumped), this.wrapperLine);
    } catch {
      return 'InternalError: out of memory';
    } finally {
      handle.dispose();
    }
  }
}

/** At most this many of the program's frames are kept in a rendering. */
const MAXIMUM_FRAMES = 20;

/**
 * A rendered thrown value with only the program's own frames (the engine's and the wrapper's are
 * cut, at most MAXIMUM_FRAMES kept), the columns of its first line as the author wrote them, and
 * a bounded length. `wrapperLine` is the line of the wrapper's end (the program's line count + 1).
 */
export function renderForReader(rendered: string, wrapperLine: number): string {
  const file = PROGRAM_FILENAME.replace('.', '\\.');
  const firstLine = new RegExp(`${file}:1:(\\d+)`);
  const lines: string[] = [];
  let frames = 0;
  for (const line of rendered.split('\n')) {
    if (/^\s+at /.test(line)) {
      if (
        !line.includes(`${PROGRAM_FILENAME}:`) ||
        line.includes(`${PROGRAM_FILENAME}:${wrapperLine}:`)
      ) {
        continue;
      }
      frames += 1;
      if (frames > MAXIMUM_FRAMES) continue;
      lines.push(
        line.replace(
          firstLine,
          (_match, column: string) =>
            `${PROGRAM_FILENAME}:1:${Math.max(1, Number(column) - BODY_START.length)}`,
        ),
      );
      continue;
    }
    lines.push(line);
  }
  if (frames > MAXIMUM_FRAMES) lines.push(`    … (${frames - MAXIMUM_FRAMES} more frames)`);
  const kept = lines.join('\n').trimEnd();
  if (kept.length <= RENDERED_MAXIMUM_LENGTH) return kept;
  return `${kept.slice(0, RENDERED_MAXIMUM_LENGTH)}… (${kept.length - RENDERED_MAXIMUM_LENGTH} more characters)`;
}
