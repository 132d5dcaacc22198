/**
 * Where the next deferred session file is made: on the calling thread while making one is quick
 * (memory-backed or fast disks, where the thread pool's round trip costs more than the file), in
 * the background for a stretch of files after two in a row took long (a disk slow to find a free
 * inode, a network share; one alone may have met a garbage collection), then on the thread again
 * to see whether the slowness has passed. It only measures and decides; it never makes a file
 * and never throws.
 */
import { performance } from 'node:perf_hooks';

export interface FileCreationPaceOptions {
  /** Milliseconds from any fixed point; default `performance.now`. */
  now?: () => number;
  /** A file made on the thread that took at least this long is slow; default 0.25 ms. */
  slowMs?: number;
  /** How many files are then made in the background before the thread tries again; default 256. */
  backgroundStretch?: number;
}

export const DEFAULT_SLOW_FILE_MS = 0.25;
export const DEFAULT_BACKGROUND_STRETCH = 256;
/** Slow files in a row that move the next ones off the thread. */
const SLOW_IN_A_ROW = 2;

export class FileCreationPace {
  private readonly now: () => number;
  private readonly slowMs: number;
  private readonly backgroundStretch: number;
  /** Files still to be made in the background before the thread tries again. */
  private backgroundLeft = 0;
  private slowInARow = 0;

  constructor(options: FileCreationPaceOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.slowMs = options.slowMs ?? DEFAULT_SLOW_FILE_MS;
    this.backgroundStretch = options.backgroundStretch ?? DEFAULT_BACKGROUND_STRETCH;
  }

  /** True when the next file should be made in the background. */
  get inBackground(): boolean {
    return this.backgroundLeft > 0;
  }

  /** Runs `make` (which makes one file on the thread) and notes how long it took. */
  timed<Result>(make: () => Result): Result {
    const started = this.now();
    try {
      return make();
    } finally {
      this.record(this.now() - started);
    }
  }

  /** Notes a file made on the thread in `elapsedMs`: a second slow one in a row starts a stretch. */
  record(elapsedMs: number): void {
    this.slowInARow = elapsedMs >= this.slowMs ? this.slowInARow + 1 : 0;
    if (this.slowInARow < SLOW_IN_A_ROW) return;
    this.slowInARow = 0;
    this.backgroundLeft = this.backgroundStretch;
  }

  /** Notes a file made in the background: one fewer before the thread tries again. */
  madeInBackground(): void {
    if (this.backgroundLeft > 0) this.backgroundLeft -= 1;
  }
}

/** The process's pace, shared by every deferred session file of this thread. */
export const sharedFileCreationPace = new FileCreationPace();
