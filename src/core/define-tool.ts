/**
 * Declares a tool with a zod schema, for library users. zod is only the declaration language: the
 * schema becomes the tool's JSON Schema `parameters` (`zodParameters`, which refuses what JSON
 * Schema cannot carry), and arguments are validated by the one ajv path in the pipeline. Loom's
 * own tools use `defineBuiltinTool`, which starts without zod.
 */
import { z } from 'zod';
import type { ToolDefinition, ToolExecution, ToolOutput } from './tool-contract.js';
import { zodParameters } from './zod-parameters.js';

export interface ToolDeclaration<Schema extends z.ZodType> {
  name: string;
  description: string;
  schema: Schema;
  concurrencySafe?: boolean;
  timeoutMs?: number;
  /** Receives the arguments after validation; a `.default()` field is therefore required. */
  execute(args: z.infer<Schema>, execution: ToolExecution): ToolOutput | Promise<ToolOutput>;
}

export function defineTool<Schema extends z.ZodType>(
  declaration: ToolDeclaration<Schema>,
): ToolDefinition<z.infer<Schema>> {
  const { name, description, schema, concurrencySafe, timeoutMs, execute } = declaration;
  const definition: ToolDefinition<z.infer<Schema>> = {
    name,
    description,
    parameters: zodParameters(z, name, schema),
    execute,
  };
  if (concurrencySafe !== undefined) definition.concurrencySafe = concurrencySafe;
  if (timeoutMs !== undefined) definition.timeoutMs = timeoutMs;
  return definition;
}
