/**
 * The per-agent clocks of one workflow child on the host: its time limit (`timeoutMs`, counted
 * from the child's start) and the stall detector (`stallMs` without model output while the child
 * waits on its model). The first to run out calls `expire` once, with the reason the run reports;
 * then a grace timer may wait for the child to stop. Its timers never keep the process alive and
 * `stop()` clears them all; it never cancels anything itself.
 */
import { performance } from 'node:perf_hooks';
import type { SubagentActivity } from '../subagent/contract.js';

/** Why a child's clock ended it: the run reports exactly this as the agent's reason. */
export type AgentLimitReason = 'timeout' | 'stalled';

export interface AgentClocksOptions {
  /** The child's time limit; absent: none. */
  timeoutMs?: number;
  /** The stall limit; absent: no stall detector (a provider that cannot report activity). */
  stallMs?: number;
  /** Called at most once, when a clock runs out. Must not throw. */
  expire(reason: AgentLimitReason): void;
  /** A monotonic clock in milliseconds; default `performance.now` (tests give a mocked one). */
  now?: () => number;
}

export class AgentClocks {
  private readonly options: AgentClocksOptions;
  private readonly now: () => number;
  private timeout: NodeJS.Timeout | undefined;
  private stall: NodeJS.Timeout | undefined;
  private grace: NodeJS.Timeout | undefined;
  /** When the stall clock last restarted (`performance.now()`). */
  private since = 0;
  /** The child waits on its model: the stall clock runs only then. */
  private waiting = true;
  private stopped = false;
  /** A clock ran out: neither fires again. */
  private expired = false;

  constructor(options: AgentClocksOptions) {
    this.options = options;
    this.now = options.now ?? (() => performance.now());
    const { timeoutMs, stallMs } = options;
    if (timeoutMs !== undefined) {
      this.timeout = setTimeout(() => this.expire('timeout'), timeoutMs).unref();
    }
    if (stallMs !== undefined) {
      // A child starts by asking its model: the stall clock runs from its start.
      this.since = this.now();
      this.armStall(stallMs);
    }
  }

  /** Whether a timer is still set (false once all ran out or were stopped). */
  get armed(): boolean {
    return this.timeout !== undefined || this.stall !== undefined || this.grace !== undefined;
  }

  /**
   * Hears the child's model activity: a request or output restarts the stall clock; an answer
   * rests it until the next request (the child's tools have their own time limits). Cheap: an
   * output only notes the time; the timer checks it when it fires.
   */
  activity(kind: SubagentActivity): void {
    const { stallMs } = this.options;
    if (this.stopped || this.expired || stallMs === undefined) return;
    if (kind === 'answered') {
      this.waiting = false;
      this.clearStall();
      return;
    }
    this.waiting = true;
    this.since = this.now();
    if (this.stall === undefined) this.armStall(stallMs);
  }

  /**
   * After a clock ran out: calls `then` in `graceMs` unless `stop()` comes first, for a child that
   * ignores its cancel (it must not hold its slot for ever).
   */
  afterGrace(graceMs: number, then: () => void): void {
    if (this.stopped || this.grace !== undefined) return;
    this.grace = setTimeout(() => {
      this.grace = undefined;
      if (!this.stopped) then();
    }, graceMs).unref();
  }

  /** Clears every timer; nothing fires after this. Idempotent. */
  stop(): void {
    this.stopped = true;
    this.clearClocks();
    if (this.grace !== undefined) clearTimeout(this.grace);
    this.grace = undefined;
  }

  private clearClocks(): void {
    if (this.timeout !== undefined) clearTimeout(this.timeout);
    this.timeout = undefined;
    this.clearStall();
  }

  private armStall(delayMs: number): void {
    this.stall = setTimeout(() => this.checkStall(), delayMs).unref();
  }

  private clearStall(): void {
    if (this.stall !== undefined) clearTimeout(this.stall);
    this.stall = undefined;
  }

  /** The stall timer fired: expire if the model has been silent long enough, else wait the rest. */
  private checkStall(): void {
    this.stall = undefined;
    const { stallMs } = this.options;
    if (this.stopped || this.expired || !this.waiting || stallMs === undefined) return;
    const rest = this.since + stallMs - this.now();
    // A timer may fire a fraction of a millisecond early; anything under one counts as out.
    if (rest >= 1) {
      this.armStall(Math.ceil(rest));
      return;
    }
    this.expire('stalled');
  }

  private expire(reason: AgentLimitReason): void {
    if (this.stopped || this.expired) return;
    this.expired = true;
    if (reason === 'timeout') this.timeout = undefined;
    this.clearClocks();
    this.options.expire(reason);
  }
}
