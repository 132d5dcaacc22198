/**
 * The background seam, as lower layers consume it: a tool that can run work in the background
 * (a bash command, a subagent, a workflow) hands a `BackgroundWork` to whatever runner the scope
 * provides. The jobs layer implements it; core only names the shape, so tools never import a
 * higher layer. `start` runs the checks first (a collector for the owner, the owner's cap) and
 * throws when the work is refused; only then does it call `run()`, so refused work never starts.
 */
import { serviceKey } from './context.js';

export type BackgroundStatus = 'completed' | 'failed' | 'killed';

export interface BackgroundOutcome {
  status: BackgroundStatus;
  /** What the owner is told when the work settles (the command's exit, the child's answer, …). */
  summary: string;
}

/** What a producer hands back once its work has started. */
export interface BackgroundHooks {
  /** Stops the work; `done` must still settle (as `killed`). Must not throw. */
  cancel(reason?: string): void;
  /** Settles once the producer has released its resources; never rejects. */
  done: Promise<BackgroundOutcome>;
  /** Output produced since the last call; absent for work without streamed output. */
  readOutput?(): string;
}

export interface BackgroundWork {
  /** The id prefix: `bash`, `subagent`, `workflow`. */
  kind: string;
  /** A short human label (the command, the task). */
  label: string;
  /** The agent session that may read and kill it, and that is told when it settles. */
  owner: string;
  /** Output kept for reading; default from the runner's config. */
  outputLimitBytes?: number;
  /** Starts the work; called only after the checks pass. A throw registers nothing. */
  run(id: string): BackgroundHooks;
}

export interface BackgroundRunner {
  /** Checks, then starts the work; returns its job id (`bash-1`). */
  start(work: BackgroundWork): { id: string };
}

export const backgroundRunnerKey = serviceKey<BackgroundRunner>('core/background-runner');
