/**
 * The contract a Loom parent sends with `session/new` when this server runs one of its ACP
 * subagents (`_meta`, keys in loom-child-meta.ts): instructions become the session's
 * instructions section, a tool filter hides those tools, a persona replaces the persona section,
 * and an output schema gives the session the `structured_output` tool its turn must end through
 * (the value goes back in the prompt response's `_meta`), as an in-process child's would. A
 * malformed value is refused naming its field; any other client sends none and nothing changes.
 * The subagent layer is imported on use, so `initialize` still loads no runtime.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import { LoomError } from '../base/errors.js';
import type { AgentHandle } from '../core/create-agent.js';
import type { JsonSchema } from '../llm/contract.js';
import type { StructuredCapture } from '../subagent/structured-output/capture.js';
import {
  INSTRUCTIONS_META_KEY,
  OUTPUT_SCHEMA_META_KEY,
  PERSONA_META_KEY,
  STRUCTURED_OUTPUT_META_KEY,
  TOOL_FILTER_META_KEY,
} from './loom-child-meta.js';

export interface ChildContract {
  instructions?: string;
  outputSchema?: JsonSchema;
  toolFilter?: string[];
  /** Given to the session as it is made (it replaces the persona section). */
  persona?: string;
}

/** The captures of the sessions that were given an output schema. */
const captures = new WeakMap<AgentHandle, StructuredCapture>();

function refused(key: string, what: string): RequestError {
  return RequestError.invalidParams({ field: `_meta.${key}` }, `_meta.${key} ${what}`);
}

function textOf(meta: Record<string, unknown>, key: string): string | undefined {
  const value = meta[key];
  if (value === undefined || typeof value === 'string') return value;
  throw refused(key, 'must be text');
}

/** The contract `_meta` carries (empty for none); throws invalid params naming a bad field. */
export async function childContractOf(
  meta: Record<string, unknown> | null | undefined,
): Promise<ChildContract> {
  if (!meta) return {};
  const contract: ChildContract = {};
  const instructions = textOf(meta, INSTRUCTIONS_META_KEY);
  if (instructions !== undefined) contract.instructions = instructions;
  const persona = textOf(meta, PERSONA_META_KEY);
  if (persona !== undefined) contract.persona = persona;
  const filter = meta[TOOL_FILTER_META_KEY];
  if (filter !== undefined) {
    if (!Array.isArray(filter) || !filter.every((name) => typeof name === 'string'))
      throw refused(TOOL_FILTER_META_KEY, 'must be a list of tool names');
    contract.toolFilter = [...filter];
  }
  const schema = meta[OUTPUT_SCHEMA_META_KEY];
  if (schema !== undefined) {
    const { assertSupportedSchema } = await import(
      '../subagent/structured-output/output-schema.js'
    );
    try {
      contract.outputSchema = assertSupportedSchema(schema, `_meta.${OUTPUT_SCHEMA_META_KEY}`);
    } catch (error) {
      if (error instanceof LoomError) throw RequestError.invalidParams(undefined, error.message);
      throw error;
    }
  }
  return contract;
}

/**
 * Gives the session the contract's instructions, tool filter and structured output, for as long
 * as it is open (its persona was given when it was made).
 */
export async function applyChildContract(
  handle: AgentHandle,
  contract: ChildContract,
): Promise<void> {
  if (contract.instructions) {
    const { INSTRUCTIONS_SECTION } = await import('../subagent/install.js');
    handle.onClose(
      handle.prompt.section({ id: INSTRUCTIONS_SECTION, order: 150, text: contract.instructions }),
    );
  }
  if (contract.toolFilter?.length) handle.onClose(handle.tools.restrict(contract.toolFilter));
  if (contract.outputSchema) {
    const { attachStructuredOutput } = await import('../subagent/structured-output/capture.js');
    captures.set(handle, attachStructuredOutput(handle, contract.outputSchema));
  }
}

/** The prompt response's `_meta` of a session given an output schema, once it has its value. */
export function structuredAnswerMeta(handle: AgentHandle): Record<string, unknown> | undefined {
  const outcome = captures.get(handle)?.outcome();
  return outcome?.kind === 'captured' ? { [STRUCTURED_OUTPUT_META_KEY]: outcome.value } : undefined;
}
