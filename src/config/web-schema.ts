/**
 * The `web:` section of config.yaml (SPEC §12): what `web_fetch` and `web_search` run under.
 * Every field documents its default; values are validated here and applied by src/web through
 * the composer. A search provider that needs a key must name the variable that holds it, never
 * the key; SearXNG needs the address of an instance.
 */
import type { z as Zod } from 'zod';
import { SEARCH_PROVIDERS } from '../web/contract.js';

export function declareWebSchema(z: typeof Zod) {
  const httpUrl = z.string({ error: 'must be an http:// or https:// URL' }).refine((text) => {
    try {
      return ['http:', 'https:'].includes(new URL(text).protocol);
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL');
  const searchSchema = z
    .strictObject({
      /** The search API: brave, tavily, searxng or exa. Required. */
      provider: z.enum(SEARCH_PROVIDERS, {
        error: `must be one of ${SEARCH_PROVIDERS.join(', ')}`,
      }),
      /** The NAME of the environment variable holding the API key; required but for searxng. */
      apiKeyEnv: z
        .string()
        .regex(
          /^[A-Za-z_][A-Za-z0-9_]*$/,
          'must be the name of an environment variable (such as BRAVE_API_KEY), not a key',
        )
        .optional(),
      /**
       * The endpoint instead of the provider's own (a SearXNG instance, a proxy); a URL with no
       * path gets the provider's path (`/res/v1/web/search`, `/search`). Default the provider's.
       */
      url: httpUrl.optional(),
    })
    .superRefine((search, context) => {
      if (search.provider !== 'searxng' && search.apiKeyEnv === undefined) {
        context.addIssue({
          code: 'custom',
          path: ['apiKeyEnv'],
          message: `${search.provider} needs an API key: name the environment variable that holds it (such as apiKeyEnv: ${search.provider.toUpperCase()}_API_KEY)`,
        });
      }
      if (search.provider === 'searxng' && search.url === undefined) {
        context.addIssue({
          code: 'custom',
          path: ['url'],
          message:
            'searxng has no public endpoint: give your instance, such as url: https://searx.example.org',
        });
      }
    });
  return z.strictObject({
    /** Bytes of a page read before it is cut; default 5242880 (5 MB). */
    maxBytes: z
      .number()
      .int()
      .min(1024, 'must be at least 1024 bytes')
      .max(1_073_741_824, 'must be at most 1073741824 bytes (1 GB)')
      .optional(),
    /** How long one fetch (redirects included) or search may take; default 30000 ms. */
    timeoutMs: z.number().int().min(100).max(600_000).optional(),
    /** Let web_fetch reach loopback, private and link-local addresses; default false. */
    allowPrivate: z.boolean().optional(),
    /** The model spec (`provider:model`) that condenses a page for a prompt; default the agent's. */
    model: z
      .string()
      .regex(/^[^:\s]+:\S/, 'must be a model spec, provider:model (such as openai:gpt-4o-mini)')
      .optional(),
    /** The search provider; without it `web_search` is not offered. */
    search: searchSchema.optional(),
  });
}
