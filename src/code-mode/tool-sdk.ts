/**
 * The tool SDK a Code Mode model reads: TypeScript declarations of `tools` (one async method per
 * tool, its description as the doc comment, its parameters schema as the argument type) and of
 * the `console` a `run_code` program writes to. Pure and deterministic (same tools, same text);
 * it must never throw on a strange schema (that part becomes `unknown`) and never mutate its input.
 */
import type { JsonSchema } from '../llm/contract.js';
import { docComment } from './doc-comment.js';
import { propertyKey, schemaType } from './schema-type.js';

export interface SdkTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
}

const TOOLS_COMMENT = [
  '/**',
  ' * The tools a run_code program can call, as `await tools.NAME(args)`. Each call returns a Promise',
  " * of the tool's text result, and rejects with an Error whose message is the tool's error text and",
  ' * whose `code` is its error code. A result that is JSON text can be parsed with JSON.parse.',
  ' */',
];

const CONSOLE_DECLARATION = [
  "/** What a program writes here is captured and returned with the program's value. */",
  'declare const console: {',
  '  log(...values: unknown[]): void;',
  '  info(...values: unknown[]): void;',
  '  warn(...values: unknown[]): void;',
  '  error(...values: unknown[]): void;',
  '};',
];

/** The SDK's declarations, tools in the order given. */
export function toolSdk(tools: readonly SdkTool[]): string {
  const lines = [...TOOLS_COMMENT, 'declare const tools: {'];
  for (const tool of tools) lines.push(...toolMember(tool));
  lines.push('};', ...CONSOLE_DECLARATION);
  return lines.join('\n');
}

function toolMember(tool: SdkTool): string[] {
  const name = typeof tool.name === 'string' ? tool.name : String(tool.name);
  const description = typeof tool.description === 'string' ? tool.description : '';
  const argumentType = schemaType(tool.parameters, '  ');
  return [
    ...docComment(description, '  '),
    `  ${propertyKey(name)}(args: ${argumentType}): Promise<string>;`,
  ];
}
