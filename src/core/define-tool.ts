/**
 * Declares one of Loom's own tools with a zod schema. zod is only the declaration language: the
 * schema becomes the tool's JSON Schema `parameters`, and arguments are validated by the one ajv
 * path in the pipeline, never parsed by zod. So anything JSON Schema cannot carry (transforms,
 * refinements) is rejected here, at definition time, instead of being silently skipped.
 */
import { z } from 'zod';
import type { JsonSchema } from '../llm/contract.js';
import { errorMessage, UserError } from './errors.js';
import type { ToolDefinition, ToolExecution, ToolOutput } from './tool-contract.js';

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
    parameters: toParameters(name, schema),
    execute,
  };
  if (concurrencySafe !== undefined) definition.concurrencySafe = concurrencySafe;
  if (timeoutMs !== undefined) definition.timeoutMs = timeoutMs;
  return definition;
}

function toParameters(name: string, schema: z.ZodType): JsonSchema {
  let generated: Record<string, unknown>;
  try {
    generated = z.toJSONSchema(schema, {
      override: ({ zodSchema, path }) => {
        const checks = zodSchema._zod.def.checks ?? [];
        if (checks.some((check) => check._zod.def.check === 'custom')) {
          const where = path.length === 0 ? 'the root' : path.join('.');
          throw new Error(`a refinement at ${where} cannot be expressed in JSON Schema`);
        }
      },
    }) as Record<string, unknown>;
  } catch (error) {
    throw new UserError(
      'INVALID_ARGUMENT',
      `tool ${name}: its zod schema has no JSON Schema form (${errorMessage(error)})`,
      { cause: error },
    );
  }
  const { $schema: _dialect, ...parameters } = generated;
  if (parameters.type !== 'object') {
    throw new UserError('INVALID_ARGUMENT', `tool ${name}: its schema must describe an object`);
  }
  return parameters;
}
