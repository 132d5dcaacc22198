/**
 * Finds a queue provider in config by name for `loom worker`: a name that is not one is a
 * UserError listing the queue providers config has.
 */

import { UserError } from '../base/errors.js';
import type { LoomConfig } from '../config/schema.js';
import type { QueueProviderConfig } from './contract.js';

export function queueProviderOf(config: LoomConfig, name: string): QueueProviderConfig {
  const providers = config.subagents?.providers ?? {};
  const provider = providers[name];
  if (provider?.type === 'queue') return provider;
  const queues = Object.entries(providers)
    .filter(([, entry]) => entry.type === 'queue')
    .map(([queueName]) => queueName);
  const known =
    queues.length > 0
      ? `the queue providers of config: ${queues.join(', ')}`
      : 'config has none: add subagents.providers.NAME: {type: queue, redis: {urlEnv: VARIABLE}}';
  const what = provider
    ? `${name} is a provider of type ${provider.type}, not queue`
    : `no queue provider named ${name}`;
  throw new UserError('INVALID_ARGUMENT', `${what} (${known})`);
}
