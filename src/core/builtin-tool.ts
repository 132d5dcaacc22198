/**
 * Loom's own tools: declared with zod, the declaration language, yet a command starts without
 * loading it (zod is the largest library on the start path, and a declaration's JSON Schema is
 * the same on every start). The JSON Schemas of the declarations a default runtime makes are
 * generated ahead into src/generated/tool-parameters.ts by `npm run generate:tools`, and a test
 * fails while that file is stale. A declaration made with other options (a configured `bash`
 * timeout, say) names no generated variant and is converted from zod when it is defined.
 */
import type { z } from 'zod';
import { generatedToolParameters } from '../generated/tool-parameters.js';
import type { JsonSchema } from '../llm/contract.js';
import { deepFreeze } from './deep-freeze.js';
import { loadLibrary } from './load-library.js';
import type { ToolDefinition, ToolExecution, ToolOutput } from './tool-contract.js';
import { zodParameters } from './zod-parameters.js';

/** Builds a tool's arguments schema with the zod it is given. */
export type DeclareArguments<Schema extends z.ZodType = z.ZodType> = (zod: typeof z) => Schema;

export interface BuiltinToolDeclaration<Schema extends z.ZodType> {
  name: string;
  description: string;
  arguments: DeclareArguments<Schema>;
  /**
   * The name its generated JSON Schema is kept under: by default the tool's name. Options that
   * change the schema give each combination its own name, or `null` where none is generated.
   */
  variant?: string | null;
  concurrencySafe?: boolean;
  timeoutMs?: number;
  /** See `ToolDefinition.deferral` and `summary`. */
  deferral?: ToolDefinition['deferral'];
  summary?: string;
  /** Receives the arguments after validation; a `.default()` field is therefore required. */
  execute(args: z.infer<Schema>, execution: ToolExecution): ToolOutput | Promise<ToolOutput>;
}

export interface BuiltinDeclaration {
  name: string;
  variant: string | null;
  arguments: DeclareArguments;
}

/** How each built-in tool was declared: for the generator and the test that it is up to date. */
const declarations = new WeakMap<object, BuiltinDeclaration>();

/** The declaration behind a tool `defineBuiltinTool` made; undefined for any other tool. */
export function builtinDeclarationOf(tool: object): BuiltinDeclaration | undefined {
  return declarations.get(tool);
}

export function defineBuiltinTool<Schema extends z.ZodType>(
  declaration: BuiltinToolDeclaration<Schema>,
): ToolDefinition<z.infer<Schema>> {
  const { name, description, concurrencySafe, timeoutMs, deferral, summary, execute } = declaration;
  const variant = declaration.variant === undefined ? name : declaration.variant;
  // Every tool of a variant shares the table's object: frozen, so none can change another's.
  const generated = variant === null ? undefined : generatedToolParameters[variant];
  const definition: ToolDefinition<z.infer<Schema>> = {
    name,
    description,
    parameters: generated ? deepFreeze(generated) : convertNow(name, declaration.arguments),
    execute,
  };
  if (concurrencySafe !== undefined) definition.concurrencySafe = concurrencySafe;
  if (timeoutMs !== undefined) definition.timeoutMs = timeoutMs;
  if (deferral !== undefined) definition.deferral = deferral;
  if (summary !== undefined) definition.summary = summary;
  declarations.set(definition, { name, variant, arguments: declaration.arguments });
  return definition;
}

function convertNow(name: string, declare: DeclareArguments): JsonSchema {
  const { z: zod } = loadLibrary('zod');
  return zodParameters(zod, name, declare(zod));
}
