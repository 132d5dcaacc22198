/**
 * Extra system prompt text a Loom parent sends with `session/new` when this server runs one of
 * its ACP subagents (`_meta["loom/instructions"]`, a workflow child's contract, say): it becomes
 * the session's instructions section, as an in-process child's would. A value that is not text is
 * refused naming the field; any other client sends none and nothing changes. The subagent layer
 * is imported on use, so `initialize` still loads no runtime.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { AgentHandle } from '../core/create-agent.js';

/** The instructions `_meta` carries, if any; throws invalid params for a value that is not text. */
export async function childInstructionsOf(
  meta: Record<string, unknown> | null | undefined,
): Promise<string | undefined> {
  if (!meta) return undefined;
  const { INSTRUCTIONS_META_KEY } = await import('../subagent/acp-provider.js');
  const instructions = meta[INSTRUCTIONS_META_KEY];
  if (instructions === undefined || typeof instructions === 'string') return instructions;
  throw RequestError.invalidParams(
    { field: `_meta.${INSTRUCTIONS_META_KEY}` },
    `_meta.${INSTRUCTIONS_META_KEY} must be text`,
  );
}

/** Gives the session `instructions` as its instructions section, for as long as it is open. */
export async function applyChildInstructions(
  handle: AgentHandle,
  instructions: string | undefined,
): Promise<void> {
  if (!instructions) return;
  const { INSTRUCTIONS_SECTION } = await import('../subagent/install.js');
  handle.onClose(
    handle.prompt.section({ id: INSTRUCTIONS_SECTION, order: 150, text: instructions }),
  );
}
