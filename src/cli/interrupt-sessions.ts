/**
 * The forced stop of a runtime: abandons its jobs and appends, synchronously, the ends of what
 * each live session left open (every layer's own repair, such as a command group's end, then the
 * interrupted calls' results, step/end and turn/end `interrupted`, so a log ends with its turn),
 * then flushes and seals the logs (later appends are dropped). For a process that must exit now;
 * it never waits and never throws.
 */
import { errorMessage } from '../base/errors.js';
import { closingEvents } from '../core/session-load.js';
import type { SessionLog } from '../core/session-log.js';
import type { LoomSetup } from './build-runtime.js';

/** Closes what `log` has open, exactly as the next open of the file would repair it. */
export function closeOpenWork(log: SessionLog): void {
  if (log.closed) return;
  try {
    for (const repair of closingEvents(log.events, 'stopping')) {
      log.append(repair.type, repair.data as never);
    }
    // The process exits once output has drained; turns still ending must not append after this.
    log.seal();
  } catch (error) {
    process.stderr.write(`loom: could not close ${log.path}: ${errorMessage(error)}\n`);
  }
}

/** Abandons every job of `setup`, then closes the open work of every live session. */
export function interruptLiveSessions(setup: LoomSetup, reason: string): void {
  try {
    setup.jobs.service.abandonAll(reason);
  } catch (error) {
    process.stderr.write(`loom: could not stop the jobs: ${errorMessage(error)}\n`);
  }
  for (const handle of setup.runtime.liveAgents) closeOpenWork(handle.log);
}
