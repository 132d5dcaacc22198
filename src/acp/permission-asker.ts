/**
 * A permission asker that forwards Loom's "ask" decisions to the ACP client as
 * `session/request_permission`, naming the file a file tool would touch. Only an explicit
 * "allow" selection approves; a rejected, cancelled or failed request denies. It never
 * rejects: a broken client denies the call.
 */
import type { AgentContext } from '@agentclientprotocol/sdk';
import type { PermissionAsker } from '../core/tool-execution.js';
import { toolKindOf, toolTitleOf } from './session-updates.js';
import { callLocationsOf } from './tool-call-details.js';

const ALLOW = 'allow';
const REJECT = 'reject';

/** `cwd` is the session's workspace, which a call's relative paths are in. */
export function clientPermissionAsker(
  client: AgentContext,
  sessionId: string,
  cwd: string,
): PermissionAsker {
  return {
    async ask({ call, reason, signal }) {
      const locations = callLocationsOf(call.name, call.arguments, cwd);
      try {
        const response = await client.request(
          'session/request_permission',
          {
            sessionId,
            toolCall: {
              toolCallId: call.callId,
              title: toolTitleOf(call.name, call.arguments),
              kind: toolKindOf(call.name),
              status: 'pending',
              rawInput: call.arguments,
              ...(locations.length > 0 ? { locations } : {}),
              _meta: { loomReason: reason },
            },
            options: [
              { optionId: ALLOW, name: 'Allow', kind: 'allow_once' },
              { optionId: REJECT, name: 'Reject', kind: 'reject_once' },
            ],
          },
          { cancellationSignal: signal, stopWaitingOnCancel: true },
        );
        return response.outcome.outcome === 'selected' && response.outcome.optionId === ALLOW;
      } catch (error) {
        if (!signal.aborted)
          process.stderr.write(`loom acp: permission request failed: ${error}\n`);
        return false;
      }
    },
  };
}
