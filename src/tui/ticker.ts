/**
 * The one clock every animation of the terminal follows (the status line's spinner and elapsed
 * time, the views' running times): a single interval, running only while something listens, so
 * spinners never each start their own timer and redraw out of step. Listeners must not throw.
 * Free of React and ink, so `loom run` uses it without loading them (use-tick.ts is the hook).
 */

/** How often the shared ticker ticks. */
export const TICK_MS = 100;

export type TickListener = (count: number) => void;

/** The timer functions a ticker uses; tests pass their own. */
export interface TickTimers {
  start(tick: () => void, intervalMs: number): () => void;
}

const unrefInterval: TickTimers = {
  start(tick, intervalMs) {
    const handle = setInterval(tick, intervalMs);
    handle.unref();
    return () => clearInterval(handle);
  },
};

export class Ticker {
  private readonly listeners = new Set<TickListener>();
  private stop: (() => void) | undefined;
  private ticks = 0;

  constructor(
    readonly intervalMs: number,
    private readonly timers: TickTimers = unrefInterval,
  ) {}

  /** Ticks so far. */
  get count(): number {
    return this.ticks;
  }

  /** Calls `listener` on every tick until the returned undo; the timer runs while any listens. */
  subscribe(listener: TickListener): () => void {
    this.listeners.add(listener);
    this.stop ??= this.timers.start(() => this.tick(), this.intervalMs);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0 || !this.stop) return;
      this.stop();
      this.stop = undefined;
    };
  }

  private tick(): void {
    this.ticks += 1;
    for (const listener of [...this.listeners]) listener(this.ticks);
  }
}

/** The terminal's ticker. */
export const sharedTicker = new Ticker(TICK_MS);
