/**
 * Extra system prompt text a Loom parent sends with `session/new` when this server runs one of
 * its ACP subagents (`_meta["loom/instructions"]`, a workflow child's contract, say): it becomes
 * the session's instructions section, as an in-process child's would. A value that is not text is
 * refused naming the field; any other client sends none and nothing changes.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { AgentHandle } from '../core/create-agent.js';
import { INSTRUCTIONS_META_KEY } from '../subagent/acp-provider.js';
import { INSTRUCTIONS_SECTION } from '../subagent/install.js';

/** The instructions `_meta` carries, if any; throws invalid params for a value that is not text. */
export function childInstructionsOf(
  meta: Record<string, unknown> | null | undefined,
): string | undefined {
  const instructions = meta?.[INSTRUCTIONS_META_KEY];
  if (instructions === undefined || typeof instructions === 'string') return instructions;
  throw RequestError.invalidParams(
    { field: `_meta.${INSTRUCTIONS_META_KEY}` },
    `_meta.${INSTRUCTIONS_META_KEY} must be text`,
  );
}

/** Gives the session `instructions` as its instructions section, for as long as it is open. */
export function applyChildInstructions(
  handle: AgentHandle,
  instructions: string | undefined,
): void {
  if (!instructions) return;
  handle.onClose(
    handle.prompt.section({ id: INSTRUCTIONS_SECTION, order: 150, text: instructions }),
  );
}
