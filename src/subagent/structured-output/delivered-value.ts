/**
 * Checks a value a child captured outside this process (a Loom ACP child's prompt response)
 * against the schema the parent asked for, through the capture tool's own parameters and the
 * one argument validator, so the parent never reports a value its schema rejects, whoever
 * captured it. Pure: it must never change the value.
 */
import { validateToolArguments } from '../../core/tool-arguments.js';
import type { ToolDefinition } from '../../core/tool-contract.js';
import type { JsonSchema } from '../../llm/contract.js';
import { captureShape, STRUCTURED_OUTPUT_TOOL } from './capture-instructions.js';

/** Checks one delivered value; `schema` must be a checked private copy (`assertSupportedSchema`). */
export function deliveredValueChecker(schema: JsonSchema): (value: unknown) => string[] {
  const shape = captureShape(schema);
  const tool: ToolDefinition = {
    name: STRUCTURED_OUTPUT_TOOL,
    description: 'the value a child delivered',
    parameters: shape.parameters,
    execute: () => '',
  };
  return (value) => {
    const check = validateToolArguments(tool, shape.wrapped ? { value } : value);
    return check.ok ? [] : check.problems;
  };
}
