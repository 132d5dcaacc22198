/**
 * The worker side of Code Mode's program engine: one program at a time, each in a fresh QuickJS
 * runtime (`quickjs/realm-runtime.ts`) prepared before its run arrives. The program's only way
 * out is the prelude's host function; only this module posts to the port, and only calls, the
 * result and nothing the program shaped but JSON text. The interrupt handler stops a spin for
 * the time limit, the memory cap or a `stop` it reads from the port synchronously.
 */
import {
  createRealmRuntime,
  type ReadError,
  type RealmRuntime,
  renderError,
  type ScriptRealm,
} from '../quickjs/realm-runtime.js';
import {
  type EntryPoint,
  RealmSession,
  type RealmUse,
  type SessionRealm,
} from '../quickjs/realm-session.js';
import type { CompiledWasm } from '../quickjs/wasm.js';
import type { ProgramLimits, ProgramOutcome, ProgramStop } from './program-contract.js';
import { PROGRAM_ENGINE_FILENAME, PROGRAM_PRELUDE_SOURCE } from './program-prelude.js';
import { type HostToProgram, type ProgramToHost, readHostMessage } from './program-protocol.js';

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

interface Prepared {
  runtime: RealmRuntime;
  realm: ScriptRealm;
  binding: { run: ProgramRun | undefined };
}

type Ending =
  | { kind: 'returned'; json?: string }
  | { kind: 'threw'; message: string }
  | { kind: 'stopped'; reason: ProgramStop; message: string };

/**
 * Serves runs on `port`: prepares a realm now, posts `ready`, and runs each `run` it is sent.
 * Realms instantiate `quickJs`, the module the host compiled, when it is given.
 */
export function serveProgramThread(port: ProgramPort, quickJs?: CompiledWasm): void {
  new ProgramThread(port, quickJs).listen();
}

/** A program that takes the paths most programs take (globals, a tool call, console, JSON, jobs). */
const EXERCISE = `const found = { list: [1, 'two', { three: true }], text: 'x'.repeat(10) };
console.log('warm', found, 1.5);
tools.tool({ path: 'a', options: [1, 2] });
const text = JSON.stringify(found);
await null;
return JSON.parse(text).list.map((item) => typeof item).join(',');`;

async function prepare(
  quickJs: CompiledWasm | undefined,
  binding: Prepared['binding'],
): Promise<Prepared> {
  // A run's session serves the runtime's interrupt handler from its start (`attach`).
  const runtime = await createRealmRuntime(
    { shouldInterrupt: () => false, poll: () => {}, pollMs: POLL_MS },
    quickJs,
  );
  const hostCall = (op: string, payload: string) => binding.run?.hostCall(op, payload) ?? '{"p":0}';
  const realm = runtime.newRealm(PROGRAM_PRELUDE_SOURCE, PROGRAM_ENGINE_FILENAME, hostCall, {});
  if (!('context' in realm)) throw new Error(renderError(realm));
  return { runtime, realm, binding };
}

/** A throwaway program in a throwaway realm, so that V8 compiles what a program needs first. */
async function warmedUp(quickJs: CompiledWasm | undefined): Promise<void> {
  try {
    const { runtime, realm } = await prepare(quickJs, { run: undefined });
    realm.call('setup', ['["tool"]']);
    const completion = realm.evaluate(`${BODY_START}${EXERCISE}${BODY_END}`, 'exercise.js');
    if (completion.ok) {
      realm.call('watch', [completion.value]);
      completion.value.dispose();
    }
    runtime.pump();
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
    this.next = warmedUp(quickJs).then(() => this.prepareNext());
    const ready = () => port.post({ type: 'ready' });
    this.next.then(ready, ready);
  }

  listen(): void {
    this.port.onMessage((raw) => {
      const message = readHostMessage(raw);
      if (message) this.handle(message);
    });
  }

  private prepareNext(): Promise<Prepared> {
    const prepared = prepare(this.quickJs, { run: undefined });
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
    const threw = (text: string) =>
      this.port.post({
        type: 'done',
        run: message.run,
        outcome: { kind: 'threw', message: text, console: '', truncated: false },
      });
    if (this.current || this.starting) {
      threw('the program thread is busy with another run');
      return;
    }
    this.starting = { run: message.run, stopped: false };
    let prepared: Prepared;
    try {
      prepared = await this.next;
    } catch (error) {
      this.starting = undefined;
      this.next = this.prepareNext();
      const reason = error instanceof Error ? error.message : String(error);
      threw(`the program engine could not load QuickJS: ${reason}`);
      return;
    }
    const stopped = this.starting.stopped;
    this.starting = undefined;
    const run = new ProgramRun(message.run, message.limits, prepared, this.port, () => {
      if (this.current === run) this.current = undefined;
      this.next = this.prepareNext();
    });
    this.current = run;
    prepared.binding.run = run;
    if (stopped) run.stop('aborted');
    else run.start(message.code, message.toolNames);
  }
}

/** One program in its realm, from its start to the one `done` it posts. */
class ProgramRun implements RealmUse<HostToProgram> {
  private readonly session: RealmSession<HostToProgram>;
  private readonly deadline: number;
  private readonly realm: SessionRealm;
  private readonly heap: RealmRuntime;
  private stopReason: ProgramStop | undefined;
  private finished = false;
  private output = '';
  private outputBytes = 0;
  private truncated = false;
  private lastIndex = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The line of the wrapper's end, whose frames are the engine's, not the program's. */
  private wrapperLine = 0;

  constructor(
    readonly id: number,
    private readonly limits: ProgramLimits,
    prepared: Prepared,
    private readonly port: ProgramPort,
    private readonly onFinish: () => void,
  ) {
    this.session = new RealmSession(port, POLL_MS, this);
    this.deadline = performance.now() + limits.timeoutMs;
    this.heap = prepared.runtime;
    this.realm = { script: prepared.realm, live: true };
    this.session.attach(prepared.runtime);
  }

  running(): boolean {
    return !this.finished;
  }

  start(code: string, toolNames: readonly string[]): void {
    this.port.post({ type: 'started', run: this.id });
    this.heap.capMemory(this.limits.memoryMb);
    this.wrapperLine = code.split(/\r\n|[\n\r\u2028\u2029]/).length + 1;
    this.timer = setTimeout(() => this.stop('timeout'), this.limits.timeoutMs);
    if (this.session.callInternal(this.realm, 'setup', [JSON.stringify(toolNames)])) return;
    const result = this.session.evaluateBody(this.realm, code, PROGRAM_FILENAME);
    if (result === undefined) return;
    const ended = this.afterEntry('body', result.ok ? undefined : result.error);
    if (result.ok && ended) result.value.dispose();
    else if (result.ok) this.session.watch(this.realm, result.value);
    this.session.afterSlice();
  }

  /** A message for this run, arriving while the program is idle. */
  receive(message: HostToProgram): void {
    this.handle(message);
  }

  /** Stops the program for `reason`: at once when idle, at the next interrupt check otherwise. */
  stop(reason: ProgramStop): void {
    if (this.finished) return;
    this.stopReason ??= reason;
    if (this.heap.inside === 0) this.checkStopped();
  }

  /** The realm's one host function; it never throws and always answers JSON text. */
  hostCall(op: string, payload: string): string {
    if (this.finished || this.stopReason !== undefined || this.session.overMemory) return '{"p":0}';
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
        return `{"p":${this.lastIndex}}`;
      }
      case 'console':
        this.write(payload);
        return this.truncated ? '{"v":"full"}' : '{}';
      case 'returned':
        this.finish(payload === '' ? { kind: 'returned' } : { kind: 'returned', json: payload });
        return '{}';
      case 'failed':
        this.finish({ kind: 'threw', message: renderForReader(payload, this.wrapperLine) });
        return '{}';
      default:
        return '{}';
    }
  }

  stopNow(now: number): 'stop' | undefined {
    if (this.stopReason === undefined && now >= this.deadline) this.stopReason = 'timeout';
    return this.stopReason === undefined ? undefined : 'stop';
  }

  /** Takes what the host sent meanwhile: a `stop` stops the program, answers wait for the slice's end. */
  takeDuringSpin(raw: unknown): void {
    const message = readHostMessage(raw);
    if (message === undefined || message.run !== this.id) return;
    if (message.type === 'stop') this.stopReason ??= 'aborted';
    else this.session.queue(message);
  }

  handle(message: HostToProgram): void {
    if (message.type === 'stop') {
      this.stop('aborted');
      return;
    }
    if (message.type !== 'answer' || message.index > this.lastIndex) return;
    const { answer } = message;
    const reply = answer.ok
      ? { v: answer.text }
      : { e: { message: answer.message, code: answer.code } };
    this.session.settle(this.realm, message.index, reply);
  }

  afterEntry(_point: EntryPoint, error: ReadError | undefined): boolean {
    this.session.takeInterruption();
    if (this.checkStopped()) return true;
    if (error) this.finish({ kind: 'threw', message: this.render(error) });
    return error !== undefined;
  }

  engineFault(error: unknown): void {
    if (this.checkStopped()) return;
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.finish({ kind: 'threw', message: `the program engine failed: ${reason}` });
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

  /** Ends the run as stopped when a stop or the memory cap was noticed; true once finished. */
  private checkStopped(): boolean {
    if (this.finished) return true;
    if (this.session.overMemory) this.stopReason = 'memory';
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

  private finish(ending: Ending): void {
    if (this.finished) return;
    const memory = ending.kind !== 'stopped' && this.session.overMemory;
    this.finished = true;
    clearTimeout(this.timer);
    const tail = { console: this.output, truncated: this.truncated };
    const outcome: ProgramOutcome = memory
      ? { kind: 'stopped', reason: 'memory', message: this.stopMessage('memory'), ...tail }
      : { ...ending, ...tail };
    this.port.post({ type: 'done', run: this.id, outcome });
    this.onFinish();
  }

  private render(error: ReadError): string {
    return renderForReader(renderError(error), this.wrapperLine);
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
