/**
 * Whether a value is a JSON Schema at all, as ajv compiles one (its dialect from `$schema`:
 * draft 2020-12, also when absent, or draft-07): the start-time check of a schema written in a
 * script. Which schemas a child can answer to is the subagent layer's to say when it starts;
 * this never narrows that. ajv is loaded at the first check; a check never throws.
 */
import type { Ajv as AjvDraft07 } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { errorMessage } from '../base/errors.js';
import { loadLibrary } from '../core/load-library.js';
import { type SchemaDialect, schemaDialect } from '../core/tool-arguments.js';

let draft2020: Ajv2020 | undefined;
let draft07: AjvDraft07 | undefined;

/** Unknown keywords (vendor extensions) pass, as they do for tool schemas. */
const CHECK_OPTIONS = { strict: false, validateFormats: false, logger: false } as const;

function compilerFor(dialect: SchemaDialect): Ajv2020 | AjvDraft07 {
  if (dialect === 'draft-07') {
    draft07 ??= new (loadLibrary('ajv').Ajv)(CHECK_OPTIONS);
    return draft07;
  }
  draft2020 ??= new (loadLibrary('ajv/dist/2020.js').Ajv2020)(CHECK_OPTIONS);
  return draft2020;
}

/** Why `schema` is not a JSON Schema; undefined when it compiles. */
export function schemaProblem(schema: Record<string, unknown>): string | undefined {
  const { $schema: declared, ...body } = schema;
  const dialect = schemaDialect(declared);
  if (!dialect) {
    return `its $schema ${JSON.stringify(declared)} is a dialect Loom does not read (draft-07 and 2020-12 are)`;
  }
  const ajv = compilerFor(dialect);
  try {
    ajv.compile(body);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  } finally {
    ajv.removeSchema(body);
  }
}
