/**
 * Closes jobs a crashed process left open in a session: every `job/start` without its `job/end`
 * gets one, as `killed`, when the session is next opened. The job itself died with the process;
 * this only keeps the log's promise that every start has its end.
 */
import type { SessionRepairer } from '../core/session-load.js';

export const repairOpenJobs: SessionRepairer = (events) => {
  const open = new Map<string, true>();
  for (const event of events) {
    if (event.type === 'job/start') open.set((event.data as { jobId: string }).jobId, true);
    else if (event.type === 'job/end') open.delete((event.data as { jobId: string }).jobId);
  }
  return [...open.keys()].map((jobId) => ({
    type: 'job/end' as const,
    data: {
      jobId,
      status: 'killed' as const,
      summary: 'the process ended before the job settled',
      reason: 'the process ended',
    },
  }));
};
