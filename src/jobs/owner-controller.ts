/**
 * The job controller of one agent: logs `job/start` and `job/end` in the agent's session and
 * hands it each completion notice: a running agent takes it at its next step, an idle one is
 * woken by a follow-up turn, but only a few times in a row without human input; after that the
 * notice waits for the next turn. It must never write to a closed log or throw from `deliver`.
 */

import { UserError } from '../base/errors.js';
import type { AgentHandle } from '../core/create-agent.js';
import { isEvent } from '../core/session-events.js';
import type { JobController } from './contract.js';
import { isSettled } from './job-settings.js';

export const DEFAULT_MAX_CONSECUTIVE_WAKES = 3;

export interface AgentControllerOptions {
  /** Follow-up turns notices may start in a row without human input. Default 3; 0 never wakes. */
  maxConsecutiveWakes?: number;
}

export interface AgentJobController extends JobController {
  /** Follow-up turns started by notices since the last human input. */
  readonly consecutiveWakes: number;
  /** Stops logging and listening; idempotent. Unregistering from the service is the caller's. */
  dispose(): void;
}

const SOURCE = { source: 'job' };

export function agentController(
  handle: AgentHandle,
  options: AgentControllerOptions = {},
): AgentJobController {
  const maxWakes = options.maxConsecutiveWakes ?? DEFAULT_MAX_CONSECUTIVE_WAKES;
  if (!Number.isInteger(maxWakes) || maxWakes < 0) {
    throw new UserError(
      'INVALID_CONFIG',
      `maxConsecutiveWakes must be a whole number of at least 0, got ${String(maxWakes)}`,
    );
  }
  let wakes = 0;
  const stopCounting = handle.log.onAppend((event) => {
    if (!isEvent(event, 'user/message')) return;
    if (event.data.delivery === 'followup' && event.data.source === undefined) wakes = 0;
  });
  let disposed = false;
  return {
    get consecutiveWakes() {
      return wakes;
    },
    started(record) {
      if (disposed || handle.log.closed) return;
      handle.log.append('job/start', { jobId: record.id, kind: record.kind, label: record.label });
    },
    settled(record) {
      if (disposed || handle.log.closed || !isSettled(record.status)) return;
      handle.log.append('job/end', {
        jobId: record.id,
        status: record.status,
        summary: record.summary ?? '',
        ...(record.reason !== undefined ? { reason: record.reason } : {}),
      });
    },
    deliver(_record, notice) {
      if (disposed || handle.log.closed) return;
      const { agent } = handle;
      if (agent.status === 'running') {
        agent.steer(notice, SOURCE);
      } else if (wakes < maxWakes) {
        wakes++;
        agent.followup(notice, SOURCE);
      } else {
        agent.inject(notice, SOURCE);
      }
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      stopCounting();
    },
  };
}
