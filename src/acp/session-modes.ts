/**
 * Plan mode as an ACP session mode: the `modes` of session/new and session/load responses
 * (`default` and `plan`), `session/set_mode` logging `plan/mode`, and a `current_mode_update`
 * when the agent itself leaves plan mode (the user approved its plan). The log stays the only
 * record of the mode; this module only translates.
 */
import { RequestError, type SessionModeState, type SessionUpdate } from '@agentclientprotocol/sdk';
import type { Disposer } from '../core/context.js';
import type { AgentHandle } from '../core/create-agent.js';
import { PLAN_MODES, type PlanMode } from '../plan/contract.js';
import { planModeOf } from '../plan/install.js';

const MODE_NAMES: Record<PlanMode, { name: string; description: string }> = {
  default: { name: 'Default', description: 'The agent works on the task and may change files.' },
  plan: {
    name: 'Plan',
    description:
      'The agent explores read-only and presents a plan for approval before changing anything.',
  },
};

/** The session's modes for a session/new or session/load response; absent without plan mode. */
export function sessionModesOf(handle: AgentHandle): SessionModeState | undefined {
  const service = planModeOf(handle);
  if (!service) return undefined;
  return {
    currentModeId: service.mode,
    availableModes: PLAN_MODES.map((id) => ({ id, ...MODE_NAMES[id] })),
  };
}

/** `session/set_mode`: logs the switch; an unknown mode id is invalid params naming the known ones. */
export function setSessionMode(handle: AgentHandle, modeId: string): void {
  const service = planModeOf(handle);
  if (!service) throw RequestError.invalidParams(undefined, 'this session has no modes');
  if (!(PLAN_MODES as readonly string[]).includes(modeId)) {
    throw RequestError.invalidParams(
      { field: 'modeId', value: modeId },
      `unknown mode ${JSON.stringify(modeId)}; the modes are ${PLAN_MODES.join(' and ')}`,
    );
  }
  service.setMode(modeId as PlanMode, 'user');
}

/** Sends `current_mode_update` whenever the mode changes other than by the client's own request. */
export function sendModeChanges(
  handle: AgentHandle,
  send: (update: SessionUpdate) => void,
): Disposer {
  const service = planModeOf(handle);
  if (!service) return () => {};
  return service.onChange((mode, by) => {
    if (by !== 'user') send({ sessionUpdate: 'current_mode_update', currentModeId: mode });
  });
}
