/**
 * First-in, first-out concurrency slots for a run's children: at most `capacity` run at once and
 * waiting starts begin in the order they were queued. A start must call `release` exactly once
 * when its child is done (or could not start); `clear` drops the waiting starts.
 */
export class FifoSlots {
  private readonly capacity: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** Starts queued and not yet begun. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `start` now if a slot is free, else when one frees up. */
  enqueue(start: () => void): void {
    if (this.running < this.capacity) {
      this.running += 1;
      start();
    } else {
      this.waiting.push(start);
    }
  }

  release(): void {
    this.running = Math.max(0, this.running - 1);
    const next = this.waiting.shift();
    if (next) {
      this.running += 1;
      next();
    }
  }

  /** Forgets every waiting start; returns how many there were. */
  clear(): number {
    const dropped = this.waiting.length;
    this.waiting.length = 0;
    return dropped;
  }
}
