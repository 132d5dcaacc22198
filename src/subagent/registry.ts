/**
 * The named provider registry. `start` refuses a request for a capability the provider lacks
 * before anything starts, then brackets the run with `subagent/start` and exactly one
 * `subagent/end`, whatever way the run settles. Providers are co-residents: several may be
 * registered at once under different names.
 */
import { type Context, type Disposer, serviceKey } from '../core/context.js';
import {
  type SubagentCapabilities,
  type SubagentEndEvent,
  SubagentError,
  type SubagentProvider,
  type SubagentRun,
  type SubagentStartEvent,
  type SubagentStartRequest,
  subagentEnd,
  subagentStart,
} from './contract.js';

export const subagentRegistryKey = serviceKey<SubagentRegistry>('subagent/registry');

const requestCapabilities: Array<[keyof SubagentStartRequest, keyof SubagentCapabilities]> = [
  ['outputSchema', 'outputSchema'],
  ['maxDepth', 'depthLimit'],
  ['toolFilter', 'toolFilter'],
  ['persona', 'persona'],
  ['workspace', 'workspace'],
];

export class SubagentRegistry {
  private readonly providers = new Map<string, SubagentProvider>();
  private readonly context: Context;

  /** Events are emitted on `context` (the runtime's root scope). */
  constructor(context: Context) {
    this.context = context;
  }

  register(provider: SubagentProvider): Disposer {
    if (this.providers.has(provider.name)) {
      throw new SubagentError(
        'DUPLICATE_PROVIDER',
        `a subagent provider named ${provider.name} is already registered`,
      );
    }
    this.providers.set(provider.name, provider);
    return () => {
      if (this.providers.get(provider.name) === provider) this.providers.delete(provider.name);
    };
  }

  names(): string[] {
    return [...this.providers.keys()];
  }

  get(name: string): SubagentProvider {
    const provider = this.providers.get(name);
    if (!provider) {
      const known = this.names().join(', ') || 'none';
      throw new SubagentError(
        'UNKNOWN_PROVIDER',
        `no subagent provider named ${name} (registered: ${known})`,
      );
    }
    return provider;
  }

  /** Throws synchronously for a request that cannot begin; otherwise the run has started. */
  start(providerName: string, request: SubagentStartRequest): SubagentRun {
    const provider = this.get(providerName);
    // A loop, not filter and map: an optimised `map` makes a holey array, whose other elements
    // kind would send the optimised caller back to the interpreter.
    const missing: string[] = [];
    for (const [field, capability] of requestCapabilities) {
      if (request[field] !== undefined && !provider.capabilities[capability]) missing.push(field);
    }
    if (missing.length > 0) {
      throw new SubagentError(
        'UNSUPPORTED_CAPABILITY',
        `subagent provider ${provider.name} does not support ${missing.join(', ')}`,
      );
    }
    const run = provider.start(request);
    const event: SubagentStartEvent = {
      runId: run.id,
      provider: provider.name,
      parentSession: request.parent.sessionId,
      description: request.description ?? '',
      depth: request.parent.delegationDepth + 1,
    };
    this.context.emit(subagentStart, event);
    let ended = false;
    const end = (payload: SubagentEndEvent) => {
      if (ended) return;
      ended = true;
      this.context.emit(subagentEnd, payload);
    };
    const result = run.result.then(
      (settled) => {
        end({
          ...event,
          stopReason: settled.stopReason,
          ...(settled.diagnostic ? { diagnostic: settled.diagnostic } : {}),
        });
        return settled;
      },
      (error: unknown) => {
        end({
          ...event,
          stopReason: 'error',
          diagnostic: error instanceof Error ? error.message : String(error),
        });
        throw error;
      },
    );
    return {
      id: run.id,
      result,
      cancel: (reason) => run.cancel(reason),
      dispose: () => run.dispose(),
    };
  }
}
