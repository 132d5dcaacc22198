/**
 * A zod schema's JSON Schema form, as a tool's `parameters`. zod is only the declaration
 * language: arguments are validated by the one ajv path in the pipeline, never parsed by zod, so
 * anything JSON Schema cannot carry (transforms, refinements) is rejected here instead of being
 * silently skipped. zod comes in as an argument, so that a caller that loads it late can use this.
 */
import type { z } from 'zod';
import { errorMessage, UserError } from '../base/errors.js';
import type { JsonSchema } from '../llm/contract.js';

export function zodParameters(zod: typeof z, name: string, schema: z.ZodType): JsonSchema {
  let generated: Record<string, unknown>;
  try {
    generated = zod.toJSONSchema(schema, {
      override: ({ zodSchema, jsonSchema, path }) => {
        const checks = zodSchema._zod.def.checks ?? [];
        if (checks.some((check) => check._zod.def.check === 'custom')) {
          const where = path.length === 0 ? 'the root' : path.join('.');
          throw new Error(`a refinement at ${where} cannot be expressed in JSON Schema`);
        }
        // `.int()` bounds an integer to the safe ones: bytes every request would carry for nothing.
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
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
