/**
 * Checks an output schema (`outputSchema`, `output_schema`, a workflow's `agent({schema})`): the
 * JSON Schema providers take for tool parameters, draft 2020-12 (the default) or draft-07, whose
 * every keyword ajv enforces or is an annotation. Each problem is reported with its JSON path; a
 * keyword is refused only when no route could send it meaning what it says (not JSON Schema, a
 * typo, a reference to a schema elsewhere), by name, with what to write instead. It must never
 * drop or loosen a keyword silently: the schema is the capture tool's parameters.
 */
import { schemaCompileProblem, schemaDialect } from '../../core/tool-arguments.js';
import type { JsonSchema } from '../../llm/contract.js';
import { SubagentError } from '../contract.js';
import { captureShape } from './capture-instructions.js';
import { describeValue, isPlainObject, jsonProblems, propertyPath } from './json-shape.js';
import { emptySchemaIndex, referenceProblems } from './schema-references.js';
import { keywordProblems } from './schema-walk.js';

/** Every way `schema` cannot be an output schema, each prefixed by its path; empty when none. */
export function schemaProblems(schema: unknown, label = '$'): string[] {
  if (!isPlainObject(schema))
    return [`${label}: must be a schema object, got ${describeValue(schema)}`];
  const notJson = jsonProblems(schema, label);
  if (notJson.length > 0) return notJson;
  const dialect = schemaDialect(schema.$schema);
  if (dialect === undefined) {
    return [
      `${propertyPath(label, '$schema')}: ${describeValue(schema.$schema)} is not a dialect Loom validates; use "https://json-schema.org/draft/2020-12/schema" (the default when absent) or "http://json-schema.org/draft-07/schema#"`,
    ];
  }
  const index = emptySchemaIndex();
  const problems = keywordProblems(schema, label, dialect, index);
  problems.push(...referenceProblems(schema, index));
  if (problems.length > 0) return problems;
  // What the walk cannot see (a reference through `$id`, ajv's own limits) shows when the
  // capture tool's real parameters are compiled.
  const compileProblem = schemaCompileProblem(captureShape(schema).parameters);
  return compileProblem === undefined ? [] : [`${label}: ${compileProblem}`];
}

/** The `UNSUPPORTED_SCHEMA` message: every problem, one a line. */
export function unsupportedSchemaMessage(label: string, problems: readonly string[]): string {
  const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
  const list = problems.map((problem) => `- ${problem}`).join('\n');
  return `${label} cannot be used as an output schema (${count}):\n${list}`;
}

/**
 * Returns a private copy of `schema` after checking it; throws `UNSUPPORTED_SCHEMA` listing every
 * problem. `label` names the root in each path (the request field the schema came from).
 */
export function assertSupportedSchema(schema: unknown, label = 'outputSchema'): JsonSchema {
  const problems = schemaProblems(schema, label);
  if (problems.length > 0) {
    throw new SubagentError('UNSUPPORTED_SCHEMA', unsupportedSchemaMessage(label, problems));
  }
  return cloneSchema(schema as JsonSchema);
}

/** A deep copy, so a caller mutating its schema later cannot change what is enforced. */
export function cloneSchema(schema: JsonSchema): JsonSchema {
  return structuredClone(schema);
}
