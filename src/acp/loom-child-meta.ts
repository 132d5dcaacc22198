/**
 * What a Loom parent and a Loom ACP child agree on beyond the protocol: the `_meta` keys of
 * `session/new` that carry a child's contract (instructions, output schema, tool filter, persona),
 * the `_meta` key of the prompt response that carries the captured value, and the advertisement
 * in `initialize` (`agentCapabilities._meta`) by which an agent says it takes them. Pure data: no
 * runtime is loaded by importing it, so `loom acp` can answer `initialize` with it at once and
 * the `acp` subagent provider (src/subagent) shares it.
 */

/** Extra system prompt text for the child (a workflow child's contract, say). */
export const INSTRUCTIONS_META_KEY = 'loom/instructions';
/** A JSON Schema (as providers take tool parameters) the child must answer through `structured_output`. */
export const OUTPUT_SCHEMA_META_KEY = 'loom/output-schema';
/** Names of tools the child must not see. */
export const TOOL_FILTER_META_KEY = 'loom/tool-filter';
/** Replaces the child's persona section. */
export const PERSONA_META_KEY = 'loom/persona';
/** In the `session/prompt` response: the value the child delivered through `structured_output`. */
export const STRUCTURED_OUTPUT_META_KEY = 'loom/structured-output';
/** In `initialize`'s `agentCapabilities._meta`: which of the keys above the agent honours. */
export const CHILD_CAPABILITIES_META_KEY = 'loom/subagent';

/** What an agent honours of a Loom parent's contract; an agent that advertises nothing, none. */
export interface LoomChildCapabilities {
  instructions: boolean;
  outputSchema: boolean;
  toolFilter: boolean;
  persona: boolean;
}

/** What Loom's own ACP server advertises: all of it. */
export const LOOM_CHILD_CAPABILITIES: LoomChildCapabilities = {
  instructions: true,
  outputSchema: true,
  toolFilter: true,
  persona: true,
};

/** What the agent advertised in `agentCapabilities` (a foreign agent: nothing). */
export function advertisedChildCapabilities(agentCapabilities: unknown): LoomChildCapabilities {
  const meta = (agentCapabilities as { _meta?: unknown } | null | undefined)?._meta;
  const advertised =
    typeof meta === 'object' && meta !== null
      ? (meta as Record<string, unknown>)[CHILD_CAPABILITIES_META_KEY]
      : undefined;
  const fields =
    typeof advertised === 'object' && advertised !== null
      ? (advertised as Record<string, unknown>)
      : {};
  return {
    instructions: fields.instructions === true,
    outputSchema: fields.outputSchema === true,
    toolFilter: fields.toolFilter === true,
    persona: fields.persona === true,
  };
}
