/**
 * Parses a model spec (`provider:model`, `openai-compatible:MODEL@BASE_URL`, `scripted:PATH`, or
 * a route name from config) into the provider, model and endpoint to use. A malformed spec or
 * route is a UserError whose message names the problem and the accepted forms. Routes hold the
 * name of a key's environment variable, never its value.
 */
import { UserError } from '../base/errors.js';

export const apiProviders = ['deepseek', 'openai', 'anthropic', 'openai-compatible'] as const;
export type ApiProvider = (typeof apiProviders)[number];
export const knownProviders = [...apiProviders, 'scripted'] as const;

export interface ModelRoute {
  provider: ApiProvider;
  /** Endpoint override; required for `openai-compatible`. Default: the provider's public API. */
  baseURL?: string;
  /** The environment variable holding the key. Default: the provider's usual variable. */
  apiKeyEnv?: string;
  /** The model used when the spec is the bare route name. */
  model?: string;
}

export interface ModelSpec {
  provider: ApiProvider | 'scripted';
  /** The model id; for `scripted`, the path of the scripted model file. */
  model: string;
  baseURL?: string;
  /** Set when the spec named a route that overrides the key variable. */
  apiKeyEnv?: string;
  /** The route the spec named, when it named one. */
  route?: string;
}

const routeFields: readonly string[] = ['provider', 'baseURL', 'apiKeyEnv', 'model'];
const exampleSpec = 'deepseek:deepseek-chat';
const exampleCompatible = 'openai-compatible:llama3.1@http://localhost:11434/v1';

export function parseModelSpec(spec: string, routes: Record<string, ModelRoute> = {}): ModelSpec {
  const text = spec.trim();
  if (text.length === 0) {
    throw new UserError(
      'MODEL_SPEC',
      `model spec is empty; expected PROVIDER:MODEL such as ${exampleSpec}`,
    );
  }
  const colon = text.indexOf(':');
  const name = colon === -1 ? text : text.slice(0, colon);
  const rest = colon === -1 ? undefined : text.slice(colon + 1).trim();
  const route = Object.hasOwn(routes, name) ? routes[name] : undefined;
  if (route !== undefined) return parseRouteSpec(text, name, validateRoute(name, route), rest);
  if (!isKnownProvider(name)) {
    const problem =
      colon === -1
        ? `model spec "${text}" names no provider; expected PROVIDER:MODEL such as ${exampleSpec}`
        : `model spec "${text}" names an unknown provider "${name}"`;
    throw new UserError('MODEL_SPEC', `${problem}. ${describeChoices(routes)}`);
  }
  if (rest === undefined || rest.length === 0) {
    const what = name === 'scripted' ? 'PATH' : 'MODEL';
    throw new UserError(
      'MODEL_SPEC',
      `model spec "${text}" names no ${what.toLowerCase()}; expected ${name}:${what}`,
    );
  }
  if (name !== 'openai-compatible') return { provider: name, model: rest };
  const { model, baseURL } = splitBaseURL(text, rest);
  return { provider: name, model, baseURL };
}

function parseRouteSpec(
  text: string,
  name: string,
  route: ModelRoute,
  rest: string | undefined,
): ModelSpec {
  const model = rest === undefined || rest.length === 0 ? route.model : rest;
  if (model === undefined || model.length === 0) {
    throw new UserError(
      'MODEL_SPEC',
      `model spec "${text}" names route "${name}", which has no default model; use ${name}:MODEL`,
    );
  }
  const parsed: ModelSpec = { provider: route.provider, model, route: name };
  if (route.baseURL !== undefined) parsed.baseURL = route.baseURL;
  if (route.apiKeyEnv !== undefined) parsed.apiKeyEnv = route.apiKeyEnv;
  return parsed;
}

function splitBaseURL(text: string, rest: string): { model: string; baseURL: string } {
  const where = `model spec "${text}"`;
  const match = /^(.+?)@([a-z][a-z0-9+.-]*:\/\/.+)$/i.exec(rest);
  if (match?.[1] && match[2]) {
    return { model: match[1], baseURL: checkBaseURL(match[2], where, 'MODEL_SPEC') };
  }
  const at = rest.lastIndexOf('@');
  if (at > 0 && at < rest.length - 1) checkBaseURL(rest.slice(at + 1), where, 'MODEL_SPEC');
  throw new UserError(
    'MODEL_SPEC',
    `${where} needs a model and a base URL: openai-compatible:MODEL@BASE_URL, for example ${exampleCompatible}`,
  );
}

function checkBaseURL(value: string, where: string, code: 'MODEL_SPEC' | 'INVALID_CONFIG'): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UserError(code, `${where}: base URL "${value}" must be an http:// or https:// URL`);
  }
  if (url.username || url.password) {
    const shown = where.split(value).join(`${url.protocol}//[redacted]@${url.host}${url.pathname}`);
    throw new UserError(
      code,
      `${shown}: the base URL must not embed credentials; name the key's environment variable in a route (apiKeyEnv)`,
    );
  }
  return value;
}

function validateRoute(name: string, route: ModelRoute): ModelRoute {
  const where = `model route "${name}"`;
  if (isKnownProvider(name)) {
    throw new UserError(
      'INVALID_CONFIG',
      `${where} shadows the built-in provider of that name; rename the route`,
    );
  }
  if (typeof route !== 'object' || route === null) {
    throw new UserError('INVALID_CONFIG', `${where} must be an object`);
  }
  for (const field of Object.keys(route)) {
    if (!routeFields.includes(field)) {
      throw new UserError(
        'INVALID_CONFIG',
        `${where} has an unknown field "${field}"; known fields: ${routeFields.join(', ')}`,
      );
    }
  }
  if (!(apiProviders as readonly string[]).includes(route.provider)) {
    throw new UserError(
      'INVALID_CONFIG',
      `${where}: field "provider" must be one of ${apiProviders.join(', ')}, got ${JSON.stringify(route.provider)}`,
    );
  }
  for (const field of ['baseURL', 'apiKeyEnv', 'model'] as const) {
    const value = route[field];
    if (value !== undefined && (typeof value !== 'string' || value.trim().length === 0)) {
      throw new UserError(
        'INVALID_CONFIG',
        `${where}: field "${field}" must be a non-empty string`,
      );
    }
  }
  if (route.provider === 'openai-compatible' && route.baseURL === undefined) {
    throw new UserError(
      'INVALID_CONFIG',
      `${where}: provider openai-compatible needs field "baseURL"`,
    );
  }
  if (route.baseURL !== undefined) checkBaseURL(route.baseURL, where, 'INVALID_CONFIG');
  return route;
}

function isKnownProvider(name: string): name is (typeof knownProviders)[number] {
  return (knownProviders as readonly string[]).includes(name);
}

function describeChoices(routes: Record<string, ModelRoute>): string {
  const routeNames = Object.keys(routes);
  const routeList = routeNames.length > 0 ? routeNames.join(', ') : 'none configured';
  return `Known providers: ${knownProviders.join(', ')}; routes: ${routeList}`;
}
