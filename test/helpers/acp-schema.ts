/**
 * The ACP SDK's own JSON Schema of protocol v1 (the stable one its package ships), for tests to
 * check what Loom sends against: stricter than the SDK's zod parsing, which drops a field it
 * cannot read instead of failing.
 */
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
const schema = require('@agentclientprotocol/sdk/schema/v1/schema.json') as object;
// The schema names integer formats (uint32, int64) ajv does not know: they are only ignored.
const ajv = new Ajv2020({ strict: false, logger: false });
ajv.addSchema(schema, 'acp');

/** What is wrong with `update` as a `session/update` notification; empty when it is valid. */
export function acpSchemaErrors(update: unknown): string[] {
  const validate = ajv.getSchema('acp#/$defs/SessionNotification');
  if (!validate) throw new Error('the SDK schema has no SessionNotification');
  if (validate({ sessionId: 'session', update })) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}
