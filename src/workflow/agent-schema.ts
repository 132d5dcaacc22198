/**
 * The check of an `agent(prompt, {schema})` option on the host, when the call arrives: before it
 * waits for a slot or is answered from the journal, so a schema no child could use ends the run
 * before another agent spends tokens. The same check as every output schema (subagent's
 * `output-schema.ts`); paths start at `schema`, the option's name. Pure; never throws.
 */
import {
  schemaProblems,
  unsupportedSchemaMessage,
} from '../subagent/structured-output/output-schema.js';

/** The fatal message for an unusable schema; undefined when a child can answer with it. */
export function agentSchemaRefusal(schema: unknown): string | undefined {
  const problems = schemaProblems(schema, 'schema');
  return problems.length === 0
    ? undefined
    : unsupportedSchemaMessage('agent() option schema', problems);
}
