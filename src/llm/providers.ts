/**
 * Makes a `ModelClient` from a model spec: AI SDK providers (DeepSeek, OpenAI chat completions,
 * Anthropic messages, any OpenAI-compatible server) or the scripted model. Keys are read from the
 * environment when each request is made (trimmed, as fetch would send them), so a missing key is
 * an `error` part naming the variable, never a throw and never a value; every message the client
 * streams is redacted last. Only a malformed spec or route throws (a UserError). A provider's
 * package is loaded at its first request, so a start that needs none (scripted) loads none.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { credentialValues } from '../base/credential-redaction.js';
import { assertNever, LoomError } from '../base/errors.js';
import { AiSdkModelClient } from './ai-sdk-client.js';
import type { ModelClient } from './contract.js';
import { type ApiProvider, type ModelRoute, type ModelSpec, parseModelSpec } from './model-spec.js';
import { nodeFetch } from './node-fetch.js';
import { type ReasoningControl, reasoningControlFor } from './reasoning-effort.js';
import { redactingModelClient } from './redacting-client.js';
import { type RetryPolicy, withRetry } from './retry.js';
import { createScriptedModel } from './scripted-model.js';

export { type ModelRoute, type ModelSpec, parseModelSpec } from './model-spec.js';

export interface CreateModelClientOptions {
  /** Named routes from config; a spec may name one instead of a provider. Default: none. */
  routes?: Record<string, ModelRoute>;
  /** Where keys are read, at request time. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Retry policy for every provider (scripted too), or `false` for single attempts. Default: `defaultRetryPolicy`. */
  retry?: Partial<RetryPolicy> | false;
  /** The fetch the providers use (tests, proxies). Default: the global fetch. */
  fetch?: typeof fetch;
}

/** The key variable each provider reads unless a route names another; none for local servers. */
export const defaultKeyVariables: Readonly<Record<ApiProvider, string | undefined>> = {
  deepseek: 'DEEPSEEK_API_KEY',
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-compatible': undefined,
};

/** `deepseek:deepseek-chat` when `DEEPSEEK_API_KEY` holds a key (blank counts as unset, as in requests). */
export function defaultModelSpec(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.DEEPSEEK_API_KEY?.trim() ? 'deepseek:deepseek-chat' : undefined;
}

/** Throws a UserError for a malformed spec, route or retry policy; never for a missing key. */
export function createModelClient(
  spec: string,
  options: CreateModelClientOptions = {},
): ModelClient {
  const parsed = parseModelSpec(spec, options.routes);
  if (parsed.provider === 'scripted') {
    // Retried and classified as every provider is, so offline runs see what users see.
    return withRetryPolicy(createScriptedModel(parsed.model, { recordCalls: false }), options);
  }
  const provider = parsed.provider;
  const env = options.env ?? process.env;
  const keyVariable = parsed.apiKeyEnv ?? defaultKeyVariables[provider];
  const credentials = () => knownCredentials(env, keyVariable, options.routes);
  const client = new AiSdkModelClient({
    id: parsed.route === undefined ? spec.trim() : `${parsed.route}:${parsed.model}`,
    createModel: () =>
      createLanguageModel(provider, parsed, readKey(env, keyVariable), options.fetch),
    secrets: credentials,
    cacheBreakpoints: provider === 'anthropic',
    imagesInToolResults: provider === 'anthropic',
    ...withReasoning(reasoningControlFor(provider, parsed.model)),
  });
  return redactingModelClient(withRetryPolicy(client, options), credentials);
}

function withReasoning(control: ReasoningControl | undefined): { reasoning?: ReasoningControl } {
  return control ? { reasoning: control } : {};
}

function withRetryPolicy(client: ModelClient, options: CreateModelClientOptions): ModelClient {
  return options.retry === false ? client : withRetry(client, options.retry ?? {});
}

async function createLanguageModel(
  provider: ApiProvider,
  spec: ModelSpec,
  apiKey: string | undefined,
  fetchFunction: typeof fetch | undefined,
): Promise<LanguageModelV3> {
  const settings = {
    ...(apiKey !== undefined && { apiKey }),
    ...(spec.baseURL !== undefined && { baseURL: spec.baseURL }),
    // Node's own fetch (undici) costs ~50 ms at its first request; `nodeFetch` does not.
    fetch: fetchFunction ?? (nodeFetch as unknown as typeof fetch),
  };
  switch (provider) {
    case 'deepseek': {
      const { createDeepSeek } = await import('@ai-sdk/deepseek');
      return createDeepSeek(settings).chat(spec.model);
    }
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      return createOpenAI(settings).chat(spec.model);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic(settings).messages(spec.model);
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({
        ...settings,
        name: spec.route ?? 'openai-compatible',
        baseURL: spec.baseURL ?? '',
        includeUsage: true,
      }).chatModel(spec.model);
    }
    default:
      return assertNever(provider, 'provider');
  }
}

function readKey(env: NodeJS.ProcessEnv, variable: string | undefined): string | undefined {
  if (variable === undefined) return undefined;
  const value = env[variable];
  if (!holdsKey(value)) {
    throw new LoomError(
      'MISSING_CREDENTIAL',
      `${variable} is not set; export it or choose another model with --model`,
    );
  }
  return value.trim();
}

/** Blank counts as unset, as in requests. */
function holdsKey(value: string | undefined): value is string {
  return value !== undefined && value.trim().length > 0;
}

/**
 * The variable that must hold the key of `spec` when it holds none (unset or blank); undefined
 * when the spec needs no key (scripted, a local server) or its key is there. Read before any
 * request, so a command can refuse to start; throws a UserError for a malformed spec or route.
 */
export function missingKeyVariable(
  spec: string,
  options: Pick<CreateModelClientOptions, 'routes' | 'env'> = {},
): string | undefined {
  const parsed = parseModelSpec(spec, options.routes);
  if (parsed.provider === 'scripted') return undefined;
  const variable = parsed.apiKeyEnv ?? defaultKeyVariables[parsed.provider];
  if (variable === undefined) return undefined;
  return holdsKey((options.env ?? process.env)[variable]) ? undefined : variable;
}

/** The values of this client's key variable, the default ones, every route's, and `*_API_KEY`s. */
function knownCredentials(
  env: NodeJS.ProcessEnv,
  variable: string | undefined,
  routes: Record<string, ModelRoute> | undefined,
): string[] {
  const routeVariables = Object.values(routes ?? {}).map((route) => route?.apiKeyEnv);
  return credentialValues(env, [
    variable,
    ...Object.values(defaultKeyVariables),
    ...routeVariables,
  ]);
}
