/**
 * The shape of config.yaml, as a strict zod schema: unknown keys are errors, never ignored.
 * Every field documents its default; values are only validated here, applied elsewhere. The
 * schemas are built at their first use, so a command that reads no config file loads no zod.
 */

import type { z as Zod } from 'zod';
import { TOOL_PRESENTATIONS } from '../code-mode/contract.js';
import { DEFAULT_CONTEXT_SETTINGS } from '../context/contract.js';
import { loadLibrary } from '../core/load-library.js';
import { toolsConfigSchema } from './tools-schema.js';
import { declareWebSchema } from './web-schema.js';

const providerNames = ['deepseek', 'openai', 'anthropic', 'openai-compatible'] as const;

/** An MCP server's name: it is the SERVER of `mcp__SERVER__TOOL`, so no `__` inside it. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
/** The transports of an MCP server entry's `type`. */
export const MCP_TRANSPORTS = ['stdio', 'http', 'sse'] as const;

/** A `${NAME}` (or `${NAME:-default}`) reference to an environment variable. */
const VARIABLE_REFERENCE = /\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}/;

const IN_PROCESS_PROVIDERS: readonly string[] = ['spawn', 'fork'];
/** Providers there without config: the in-process ones and `acp` (Loom itself over ACP). */
export const BUILTIN_PROVIDERS: readonly string[] = [...IN_PROCESS_PROVIDERS, 'acp'];

export function knownProvider(
  name: string,
  providers: Record<string, unknown> | undefined,
): boolean {
  return BUILTIN_PROVIDERS.includes(name) || (providers !== undefined && name in providers);
}

export function unknownProviderMessage(
  name: string,
  providers: Record<string, unknown> | undefined,
): string {
  const known = [...new Set([...BUILTIN_PROVIDERS, ...Object.keys(providers ?? {})])].join(', ');
  return `no subagent provider named ${name} (known: ${known}; define others under subagents.providers)`;
}

/** The events a hook may run at, with Claude Code's names (SPEC §10). */
export const HOOK_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'SessionStart',
  'PreCompact',
  'Notification',
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/** The longest a hook may be given, in seconds (an hour). */
export const MAX_HOOK_TIMEOUT_SECONDS = 3600;

/** Why `matcher` is not a regular expression a hook can use; undefined when it is one. */
export function hookMatcherProblem(matcher: string): string | undefined {
  if (matcher === '' || matcher === '*') return undefined;
  try {
    new RegExp(matcher);
    return undefined;
  } catch (error) {
    return `is not a regular expression (${(error as Error).message}); write a tool name, alternatives such as "edit_file|write_file", or "*" for every tool`;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Cross-field checks run even when other fields of the file are wrong, so one load reports every
 * problem; they read the (then unchecked) value defensively.
 */
const EVEN_WITH_OTHER_PROBLEMS = {
  when: (payload: { value: unknown }) => isRecord(payload.value),
};

/** Builds every schema of config.yaml (and `.mcp.json`) with the zod it is given. */
function declareSchemas(z: typeof Zod) {
  const modelRouteSchema = z.strictObject({
    /** Which adapter serves the route. */
    provider: z.enum(providerNames),
    /** The API's base URL; default: the provider's public endpoint. */
    baseURL: z.url().optional(),
    /** The NAME of the environment variable holding the key (never the key itself). */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name, not a key')
      .optional(),
    /** The model used when the spec names the route alone. */
    model: z.string().min(1).optional(),
  });

  /** What a model costs, in US dollars per million tokens; cache reads and writes when priced apart. */
  const modelPriceSchema = z.strictObject({
    input: z.number().min(0),
    output: z.number().min(0),
    /** Prompt tokens read from the provider's cache; default the input price. */
    cacheRead: z.number().min(0).optional(),
    /** Prompt tokens written to the provider's cache; default the input price. */
    cacheWrite: z.number().min(0).optional(),
  });

  /**
   * One entry of `models:`. Named by a lower-case word it is a route (`provider` required) and may
   * also state its model's window; named by a model spec (`openai:gpt-4o-mini`) or `scripted` (every
   * scripted file) it states what Loom knows of that model, over the catalog's figures.
   */
  const modelEntrySchema = z.strictObject({
    ...modelRouteSchema.partial().shape,
    /** The context window in tokens. */
    context: z.number().int().min(1).optional(),
    /** The most output tokens one request may produce. */
    output: z.number().int().min(1).optional(),
    prices: modelPriceSchema.optional(),
    /** Whether the model takes images. */
    images: z.boolean().optional(),
  });

  /** A share of the model's window, in (0, 1]. */
  const windowShare = z
    .number()
    .gt(0, 'must be a share of the window, above 0 and at most 1')
    .max(1, 'must be a share of the window, above 0 and at most 1');

  const permissionRuleSchema = z.strictObject({
    /**
     * The tool the rule applies to; `*` stands for any run of characters (`*` alone: every tool,
     * `mcp__github__*`: every tool of the MCP server github). A name or pattern that no tool has
     * fails the load, except MCP tool names (`mcp__…`): a server's tools are known only once it runs.
     */
    tool: z.string().min(1),
    /**
     * Argument name (one the tool takes, else the load fails) to pattern (`*` matches any run of
     * characters); all must match. A `bash` `command` pattern is tested against each simple
     * command of the line, whitespace normalised.
     */
    match: z.record(z.string(), z.string()).optional(),
    action: z.enum(['allow', 'deny', 'ask']),
    /** Shown to the model when the rule denies. */
    reason: z.string().optional(),
    /**
     * `false` on an `allow` rule: matching calls pass the sandbox without asking (a `bash`
     * command with `outside_sandbox: true` runs outside it, a file tool writes a protected path
     * such as `.claude/`); only with `action: allow` (checked under `permissions`). Default: the
     * sandbox applies (SPEC §11).
     */
    sandbox: z
      .literal(false, {
        error: 'takes only false (run matching calls outside the sandbox without asking)',
      })
      .optional(),
  });

  /** One hook: a shell command run with the event as JSON on its stdin (Claude Code's shape). */
  const hookCommandSchema = z.strictObject({
    type: z.literal('command', 'must be "command" (the only kind of hook Loom runs)'),
    /** Run with `sh -c` in the workspace, its environment without credentials. */
    command: z.string().min(1, 'must be a shell command'),
    /** Seconds before the hook's process group is killed; default 60. */
    timeout: z
      .number()
      .gt(0, 'must be a number of seconds above 0')
      .max(MAX_HOOK_TIMEOUT_SECONDS, `must be at most ${MAX_HOOK_TIMEOUT_SECONDS} seconds`)
      .optional(),
  });

  /** The hooks of one matcher: all matching hooks of an event run together. */
  const hookGroupSchema = z.strictObject({
    /**
     * A regular expression matched against the whole tool name (PreToolUse, PostToolUse), the
     * trigger (PreCompact: `manual`, `auto`, `overflow`) or the source (SessionStart: `startup`,
     * `resume`); absent, empty or `*`: everything. Other events ignore it.
     */
    matcher: z
      .string()
      .superRefine((matcher, context) => {
        const problem = hookMatcherProblem(matcher);
        if (problem) context.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    hooks: z.array(hookCommandSchema).min(1, 'must list at least one hook'),
  });

  /** `hooks:` of config.yaml, by event; the same shape as `.claude/settings.json`'s `hooks`. */
  const hooksSchema = z.strictObject(
    Object.fromEntries(
      HOOK_EVENTS.map((event) => [event, z.array(hookGroupSchema).optional()]),
    ) as Record<HookEventName, Zod.ZodOptional<Zod.ZodArray<typeof hookGroupSchema>>>,
  );

  /**
   * One MCP server (`mcp.servers.NAME` in config.yaml, and each of `.mcp.json`'s `mcpServers`):
   * a command run over stdio, or a `url` spoken to over streamable HTTP (`type: "http"`, the
   * default) or the older HTTP+SSE (`type: "sse"`). `${NAME}` and `${NAME:-default}` in
   * `command`, `args`, `env`, `cwd`, `url` and `headers` are read from Loom's environment when the
   * server starts. An entry that does not fit is that server's problem alone (see
   * mcp/server-list.ts): the server is reported failed and the others run.
   */
  const mcpServerSchema = z
    .strictObject({
      /** The transport, as `.mcp.json` files write it; inferred from `command` or `url` when absent. */
      type: z
        .enum(MCP_TRANSPORTS, {
          error: (issue) =>
            `unknown transport ${JSON.stringify(issue.input)}; Loom speaks ${MCP_TRANSPORTS.join(', ')}`,
        })
        .optional(),
      /** stdio: the program (looked up in PATH) and its arguments. */
      command: z.string().min(1).optional(),
      args: z.array(z.string()).optional(),
      /** stdio: variables added to HOME, LOGNAME, PATH, SHELL, TERM and USER (all it inherits). */
      env: z.record(z.string(), z.string()).optional(),
      /** stdio: its working folder, relative to the workspace; default the workspace. */
      cwd: z.string().min(1).optional(),
      /** HTTP (streamable or SSE): the endpoint. */
      url: z.string().min(1).optional(),
      /**
       * Streamable HTTP: header values, each naming environment variables as `${NAME}` (such as
       * `Bearer ${GITHUB_TOKEN}`); a literal value is an error, so no secret is written in config.
       */
      headers: z
        .record(
          z.string().min(1),
          z.string().regex(
            VARIABLE_REFERENCE,
            // biome-ignore lint/suspicious/noTemplateCurlyInString: `${NAME}` is the syntax the message teaches.
            'must name an environment variable as ${NAME} (such as "Bearer ${GITHUB_TOKEN}"); literal header values are not allowed in config',
          ),
        )
        .optional(),
      /** How long it may take to start and list its tools; default `mcp.startTimeoutMs`. */
      startTimeoutMs: z.number().int().min(100).max(600_000).optional(),
      /** stdio: run the server under the `sandbox:` settings (bubblewrap) as `bash` runs; default false. */
      sandbox: z.boolean().optional(),
      /**
       * Whether the server's sampling requests run on the calling agent's model: `allow`, `ask`
       * (after the human approves each; the default) or `deny`.
       */
      sampling: z
        .enum(['allow', 'ask', 'deny'], {
          error: (issue) =>
            `sampling takes allow, ask or deny (got ${JSON.stringify(issue.input)})`,
        })
        .optional(),
    })
    .superRefine((server, context) => {
      const problem = (message: string, path: string[] = []) =>
        context.addIssue({ code: 'custom', message, path });
      if ((server.command === undefined) === (server.url === undefined)) {
        problem('a server needs either `command` (stdio) or `url` (HTTP or SSE), not both');
        return;
      }
      const stdio = server.command !== undefined;
      if (server.type !== undefined && (server.type === 'stdio') !== stdio) {
        problem(`type ${server.type} does not fit ${stdio ? '`command`' : '`url`'}`, ['type']);
      }
      const misplaced = stdio
        ? (['headers'] as const)
        : (['args', 'env', 'cwd', 'sandbox'] as const);
      for (const key of misplaced) {
        if (server[key] !== undefined) {
          problem(`${key} is for ${stdio ? 'HTTP' : 'stdio'} servers only`, [key]);
        }
      }
    });

  /** `subagents.providers.NAME`: an agent process speaking ACP over stdio. */
  const acpProviderSchema = z.strictObject({
    type: z.literal('acp'),
    /** The agent's executable; default Loom itself (`loom acp`, with the parent's model). */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z
      .record(
        z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
        z.string(),
      )
      .optional(),
    /** How long a cancelled child may take to stop before its process group is killed; default 3000 ms. */
    cancelGraceMs: z.number().int().min(1).max(600000).optional(),
  });

  /** `subagents.providers.NAME` of type `queue`: children as BullMQ jobs that `loom worker` runs. */
  const queueProviderSchema = z.strictObject({
    type: z.literal('queue'),
    redis: z.strictObject({
      /** The NAME of the environment variable holding the Redis URL (with any password). */
      urlEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
    }),
    /** The BullMQ queue; default `loom-NAME`. */
    queue: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,100}$/, 'queue names are letters, digits, - and _')
      .optional(),
    /** Runs a child may take (a lost worker counts as one); default 2. */
    attempts: z.number().int().min(1).max(100).optional(),
    /** A worker silent this long is taken for dead and its child handed on; default 30000 ms. */
    stalledMs: z.number().int().min(500).max(3600000).optional(),
  });

  /** A path of `sandbox.writable` / `sandbox.hidden`: absolute, `~/...`, or relative to the workspace. */
  const sandboxPath = z
    .string({ error: 'must be a path (absolute, ~/..., or relative to the workspace)' })
    .min(1, 'must be a path (absolute, ~/..., or relative to the workspace)')
    .refine((path) => !path.includes('\0'), 'must not contain a NUL character');

  /** `sandbox:` — how `bash` commands (and MCP servers marked `sandbox: true`) are confined. */
  const sandboxSchema = z.strictObject({
    /**
     * `workspace-write` (default): commands run under bubblewrap, writing only the workspace,
     * a private /tmp and `writable`; `read-only`: the workspace too is read-only, and the file
     * tools refuse writes; `off`: commands run as Loom does, unconfined.
     */
    mode: z
      .enum(['workspace-write', 'read-only', 'off'], {
        error: 'must be workspace-write, read-only or off',
      })
      .optional(),
    /** Whether sandboxed commands reach the network; default false. */
    network: z.boolean({ error: 'must be true or false' }).optional(),
    /**
     * Hosts sandboxed commands may reach through Loom's proxy, as `host`, `host:port`, `host:*`
     * or `*.domain` (sandbox/host-pattern.ts), when `network` is false; default none (no network).
     */
    allowedHosts: z
      .array(
        z
          .string({ error: 'must be a host name or host:port' })
          .regex(
            /^(?:[A-Za-z0-9*](?:[A-Za-z0-9.*-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::(?:[0-9]{1,5}|\*))?$/,
            'must be a host name or host:port, such as registry.npmjs.org, 127.0.0.1:8080 or localhost:*',
          ),
      )
      .optional(),
    /** Further folders sandboxed commands may write (a cache such as ~/.npm); default none. */
    writable: z.array(sandboxPath).optional(),
    /** Further paths sandboxed commands cannot see, beside ~/.ssh, ~/.aws, ...; default none. */
    hidden: z.array(sandboxPath).optional(),
  });

  const configObjectSchema = z.strictObject({
    /**
     * The default model spec, below --model and $LOOM_MODEL; without any of them
     * deepseek:deepseek-chat when DEEPSEEK_API_KEY is set.
     */
    model: z.string().min(1).optional(),
    /**
     * Named model routes, usable as `NAME:MODEL` or `NAME`; and, by model spec or `scripted`, a
     * model's `context`, `output`, `prices` and `images` over the catalog's (SPEC §9).
     */
    models: z
      .record(z.string(), modelEntrySchema)
      .superRefine((models, context) => {
        for (const [key, entry] of Object.entries(models)) {
          const problem = (message: string, path: string[] = []) =>
            context.addIssue({ code: 'custom', message, path: [key, ...path] });
          const fields: Record<string, unknown> = isRecord(entry) ? entry : {};
          if (key === 'scripted' || /^[^:\s]+:\S/.test(key)) {
            for (const field of ['provider', 'baseURL', 'apiKeyEnv', 'model']) {
              if (fields[field] === undefined) continue;
              problem(
                `"${key}" is a model spec, which takes context, output, prices and images; ${field} belongs to a route (named by a lower-case word)`,
                [field],
              );
            }
          } else if (!/^[a-z][a-z0-9-]*$/.test(key)) {
            problem(
              `"${key}" is neither a route name (a lower-case word) nor a model spec (provider:model, or scripted)`,
            );
          } else if (fields.provider === undefined) {
            problem(
              `route "${key}" needs a provider (${providerNames.join(', ')}); to describe a model, name the entry by its spec (provider:model)`,
              ['provider'],
            );
          }
          const { context: window, output } = fields;
          if (typeof window === 'number' && typeof output === 'number' && output > window) {
            problem(`output (${output}) is larger than context (${window})`, ['output']);
          }
        }
      }, EVEN_WITH_OTHER_PROBLEMS)
      .optional(),
    /** When the model's view is compacted (SPEC §9). */
    context: z
      .strictObject({
        /** Share of the window at which a request is compacted first; default 0.8. */
        compactAt: windowShare.optional(),
        /** Share of the window at which `context/warning` is logged once; default 0.7. */
        warnAt: windowShare.optional(),
        /** The most recent steps whose tool results are never pruned; default 3. */
        keepSteps: z
          .number()
          .int('must be a whole number of steps')
          .min(0, 'must be a whole number of steps, 0 or more')
          .optional(),
      })
      .superRefine((settings, context) => {
        const compactAt = settings.compactAt ?? DEFAULT_CONTEXT_SETTINGS.compactAt;
        const warnAt = settings.warnAt ?? DEFAULT_CONTEXT_SETTINGS.warnAt;
        if (typeof compactAt !== 'number' || typeof warnAt !== 'number' || warnAt <= compactAt) {
          return;
        }
        context.addIssue({
          code: 'custom',
          path: ['warnAt'],
          message: `warnAt (${warnAt}) must not be above compactAt (${compactAt}): the warning comes first`,
        });
      }, EVEN_WITH_OTHER_PROBLEMS)
      .optional(),
    tools: toolsConfigSchema(z).optional(),
    agent: z
      .strictObject({
        /** Model requests a turn may take; default 50. */
        maxSteps: z.number().int().min(1).max(10000).optional(),
      })
      .optional(),
    subagents: z
      .strictObject({
        /** How deep delegation may go (a child is depth 1); default 3; 0 forbids delegation. */
        maxDepth: z.number().int().min(0).max(10).optional(),
        /**
         * What the `subagent` tool starts: a fresh child (`spawn`, default), a `fork`, `acp` (Loom
         * itself as an ACP agent process) or a provider of `providers`.
         */
        provider: z.string().min(1).optional(),
        /**
         * Out-of-process providers: each child is an agent process speaking ACP over stdio.
         * `command` absent: Loom itself (`loom acp`). `env` values are added to the agent's
         * environment (it inherits Loom's, so keys need not be written here).
         */
        providers: z
          .record(
            z.string(),
            z.discriminatedUnion('type', [acpProviderSchema, queueProviderSchema]),
          )
          .optional(),
        /** How subagents (workflow children too) are shown their tools; default `tools.presentation`. */
        presentation: z.enum(TOOL_PRESENTATIONS).optional(),
      })
      .superRefine((subagents, context) => {
        const providers = isRecord(subagents.providers) ? subagents.providers : undefined;
        for (const name of Object.keys(providers ?? {})) {
          const problem = IN_PROCESS_PROVIDERS.includes(name)
            ? `${name} is an in-process provider; choose another name`
            : /^[a-z][a-z0-9-]*$/.test(name)
              ? undefined
              : `provider names are lower-case words (a-z, 0-9, -), not ${JSON.stringify(name)}`;
          if (problem)
            context.addIssue({ code: 'custom', path: ['providers', name], message: problem });
        }
        const provider = subagents.provider;
        if (typeof provider !== 'string' || knownProvider(provider, providers)) return;
        context.addIssue({
          code: 'custom',
          path: ['provider'],
          message: unknownProviderMessage(provider, providers),
        });
      }, EVEN_WITH_OTHER_PROBLEMS)
      .optional(),
    workflow: z
      .strictObject({
        /** Workflow children running at once (slots); default 8 on every machine; 1..256. */
        maxConcurrentAgents: z.number().int().min(1).max(256).optional(),
        /** Children one run may start; default 1000. */
        maxTotalAgents: z.number().int().min(1).max(100_000).optional(),
        /** Items one `parallel` or `pipeline` call may take; default 4096. */
        maxItemsPerCall: z.number().int().min(1).max(1_000_000).optional(),
        /** How long the script's first synchronous slice may run; default 5000 ms. */
        syncTimeoutMs: z.number().int().min(1).max(600000).optional(),
        /** How long a cancelled run may take to settle before its worker is stopped; default 5000 ms. */
        cancelGraceMs: z.number().int().min(1).max(600000).optional(),
        /** The script's memory in MB; a run past it ends with SCRIPT_MEMORY; default 256. */
        maxScriptMemoryMb: z.number().int().min(16).max(65536).optional(),
        /** The largest return value, as JSON bytes (RESULT_TOO_LARGE past it); default 16 MiB. */
        maxResultBytes: z.number().int().min(1024).max(1073741824).optional(),
        /** A whole run's time; past it the run ends with RUN_TIMEOUT; default none. */
        maxRunMs: z.number().int().min(1).max(2147483647).optional(),
        /** A child with no model output for this long is cancelled (reason `stalled`); default 300000 ms. */
        stallMs: z.number().int().min(1).max(2147483647).optional(),
        /** Where scripts run: `worker` (a vm context in a worker thread) or `isolated` (QuickJS). */
        engine: z.enum(['worker', 'isolated']).optional(),
        /**
         * When agents get the `workflow` tool: `explicit` (default) offers it with guidance to use it
         * only when the user asks for a workflow; `always` lets the model choose it freely.
         */
        offerTool: z.enum(['explicit', 'always']).optional(),
        /** The subagent provider a run's children start with (`--provider` overrides it); default `spawn`. */
        provider: z.string().min(1).optional(),
      })
      .optional(),
    jobs: z
      .strictObject({
        /** Unfinished background jobs one agent may have at once; default 10. */
        maxPerOwner: z.number().int().min(1).max(1000).optional(),
        /** Unread output kept per background job, in bytes (the oldest goes first); default 1048576. */
        outputLimitBytes: z
          .number()
          .int()
          .min(1024)
          .max(256 * 1024 * 1024)
          .optional(),
      })
      .optional(),
    goal: z
      .strictObject({
        /** Rounds a goal may start; default 20 (`--max-rounds` overrides it for one goal). */
        maxRounds: z.number().int().min(1).max(10_000).optional(),
        /** Consecutive rounds that must report the same block before `blocked` is accepted; default 3. */
        blockedAfterConsecutiveRounds: z.number().int().min(1).max(100).optional(),
      })
      .optional(),
    /** Workspace checkpoints before each step that can change files (SPEC §11). */
    checkpoints: z
      .strictObject({
        /** Default true; false takes no snapshots (`loom rewind` then has nothing to restore). */
        enabled: z.boolean().optional(),
      })
      .optional(),
    todo: z
      .strictObject({
        /** Items one todo list may hold; default 100. */
        maxItems: z.number().int().min(1).max(10_000).optional(),
      })
      .optional(),
    plan: z
      .strictObject({
        /**
         * Deny changing tools in plan mode (default true); false makes plan mode prompt-only.
         * Read-only bash commands are those a `bash` allow rule with a command pattern permits.
         */
        enforce: z.boolean().optional(),
      })
      .optional(),
    /** Project instructions (SPEC §10): AGENTS.md, else CLAUDE.md, in each folder that has one. */
    instructions: z
      .strictObject({
        /**
         * File names tried in each folder (the workspace, its parents up to the repository root,
         * and $LOOM_HOME), in order: a folder's first existing one is read. Default
         * [AGENTS.md, CLAUDE.md]; an empty list reads none.
         */
        files: z
          .array(
            z
              .string({ error: 'must be a file name such as AGENTS.md' })
              .min(1, 'must be a file name such as AGENTS.md')
              .refine(
                (name) => !/[\\/\0]/.test(name) && name !== '.' && name !== '..',
                'must be a file name such as AGENTS.md, not a path: it is looked for in every folder',
              ),
            { error: 'must be a list of file names, such as [AGENTS.md, CLAUDE.md]' },
          )
          .superRefine((names, context) => {
            names.forEach((name, index) => {
              if (names.indexOf(name) === index) return;
              context.addIssue({
                code: 'custom',
                path: [index],
                message: `lists ${JSON.stringify(name)} twice`,
              });
            });
          })
          .optional(),
      })
      .optional(),
    retry: z
      .strictObject({
        /** Attempts per model request, retries included; default 4. */
        maxAttempts: z.number().int().min(1).max(20).optional(),
        /** First backoff; doubles each retry; default 500 ms. */
        baseDelayMs: z.number().int().min(0).max(600000).optional(),
      })
      .optional(),
    /**
     * Prices by model spec as requests log it (`provider:model`, such as `openai:gpt-4o`), for the
     * interactive terminal's `/cost` and footer. A model without a price shows tokens only; default
     * none.
     */
    prices: z
      .record(z.string(), modelPriceSchema)
      .superRefine((prices, context) => {
        for (const key of Object.keys(prices)) {
          if (/^[^:\s]+:\S/.test(key)) continue;
          context.addIssue({
            code: 'custom',
            path: [key],
            message: `"${key}" is not a model spec; a price key is provider:model`,
          });
        }
      })
      .optional(),
    /** First matching rule wins; no match allows. Enforced before every tool call. */
    permissions: z
      .array(permissionRuleSchema)
      .superRefine(
        (rules, context) => {
          rules.forEach((rule, index) => {
            if (!isRecord(rule) || rule.sandbox !== false || rule.action === 'allow') return;
            context.addIssue({
              code: 'custom',
              path: [index, 'sandbox'],
              message: `sandbox: false goes only with action: allow (this rule's action is ${String(rule.action)})`,
            });
          });
        },
        { when: (payload) => Array.isArray(payload.value) },
      )
      .optional(),
    /** Where `bash` commands run (SPEC §11): bubblewrap on Linux; see src/sandbox/README.md. */
    sandbox: sandboxSchema.optional(),
    /**
     * Shell commands run at an agent's events (SPEC §10), as Claude Code's `hooks`; they add to
     * those of `.claude/settings.json`. Default none.
     */
    hooks: hooksSchema.optional(),
    /** `web_fetch` and `web_search` (SPEC §12); see web-schema.ts. */
    web: declareWebSchema(z).optional(),
    mcp: z
      .strictObject({
        /**
         * How long a server may take to start and list its tools before it is reported as failed
         * and left out (its tools absent); default 30000 ms, long enough for an `npx` server's first
         * download, short enough that a dead one never holds a session up. Per server:
         * `startTimeoutMs`.
         */
        startTimeoutMs: z.number().int().min(100).max(600_000).optional(),
        /** Characters of one tool result kept (head and tail, like bash output); default 30000. */
        outputLimit: z.number().int().min(1000).max(1_000_000).optional(),
        /**
         * How long a tool call may go without a word from its server (its answer or a progress
         * notification, each of which starts the wait again) before it is cancelled; default
         * 60000 ms, the MCP SDK's own request timeout.
         */
        callTimeoutMs: z.number().int().min(100).max(3_600_000).optional(),
        /**
         * The longest one tool call may take, progress or not (a task's polling included); default
         * 600000 ms (10 minutes). It is the MCP tools' time limit in the tool pipeline too.
         */
        maxCallMs: z.number().int().min(100).max(86_400_000).optional(),
        /**
         * Folders offered to servers as roots besides the workspace (absolute, or relative to the
         * workspace); default none. Servers read them with `roots/list`.
         */
        roots: z.array(z.string().min(1)).optional(),
        /**
         * MCP servers by name; their tools are `mcp__NAME__TOOL`. Default none. Each entry (and its
         * name) is checked against `mcpServerSchema` when the servers are listed
         * (mcp/server-list.ts), so an entry Loom cannot use fails that server alone.
         */
        servers: z.record(z.string(), z.unknown()).optional(),
      })
      .optional(),
  });

  /** The whole file: its fields, and `workflow.provider` naming a provider there is. */
  const configSchema = configObjectSchema.superRefine((config, context) => {
    const provider = isRecord(config.workflow) ? config.workflow.provider : undefined;
    const providers =
      isRecord(config.subagents) && isRecord(config.subagents.providers)
        ? config.subagents.providers
        : undefined;
    if (typeof provider !== 'string' || knownProvider(provider, providers)) return;
    context.addIssue({
      code: 'custom',
      path: ['workflow', 'provider'],
      message: unknownProviderMessage(provider, providers),
    });
  }, EVEN_WITH_OTHER_PROBLEMS);
  /** The project's `.mcp.json` (`{"mcpServers": {...}}`, the format other tools share). */
  const mcpProjectFileSchema = z.object({
    /** Each entry is checked on its own (mcp/server-list.ts): a bad one fails that server alone. */
    mcpServers: z.record(z.string(), z.unknown()),
  });
  return {
    configSchema,
    mcpProjectFileSchema,
    modelRouteSchema,
    modelEntrySchema,
    modelPriceSchema,
    permissionRuleSchema,
    mcpServerSchema,
    acpProviderSchema,
    hookGroupSchema,
    hookCommandSchema,
  };
}

type ConfigSchemas = ReturnType<typeof declareSchemas>;
let schemas: ConfigSchemas | undefined;

/** The schemas, built (and zod loaded) at the first call. */
export function configSchemas(): ConfigSchemas {
  schemas ??= declareSchemas(loadLibrary('zod').z);
  return schemas;
}

/** The parts of a zod schema that `configKeysAt` walks (zod's own definition object). */
interface SchemaDefinition {
  type: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
  valueType?: unknown;
  element?: unknown;
  options?: unknown[];
}

function definitionOf(schema: unknown): SchemaDefinition | undefined {
  return (schema as { _zod?: { def?: SchemaDefinition } })._zod?.def;
}

/** `schema` without its optional, default and pipe wrappers. */
function unwrapped(schema: unknown): SchemaDefinition[] {
  const definition = definitionOf(schema);
  if (!definition) return [];
  if (definition.innerType !== undefined) return unwrapped(definition.innerType);
  if (definition.type === 'pipe') return unwrapped(definition.in);
  if (definition.type === 'union') return (definition.options ?? []).flatMap(unwrapped);
  return [definition];
}

/**
 * The keys config.yaml takes in the object at `path` (such as `['subagents']`), for the "did
 * you mean" of an unknown key; empty where the path names no object.
 */
export function configKeysAt(path: readonly PropertyKey[]): string[] {
  let current: SchemaDefinition[] = unwrapped(configSchemas().configSchema);
  for (const segment of path) {
    current = current.flatMap((definition) => {
      if (definition.type === 'object') return unwrapped(definition.shape?.[String(segment)]);
      if (definition.type === 'record') return unwrapped(definition.valueType);
      if (definition.type === 'array') return unwrapped(definition.element);
      return [];
    });
  }
  return [...new Set(current.flatMap((definition) => Object.keys(definition.shape ?? {})))];
}

export type LoomConfig = Zod.infer<ConfigSchemas['configSchema']>;
export type ModelRouteConfig = Zod.infer<ConfigSchemas['modelRouteSchema']>;
export type PermissionRule = Zod.infer<ConfigSchemas['permissionRuleSchema']>;
export type AcpProviderSchema = Zod.infer<ConfigSchemas['acpProviderSchema']>;
export type ModelPrice = Zod.infer<ConfigSchemas['modelPriceSchema']>;
export type ModelEntryConfig = Zod.infer<ConfigSchemas['modelEntrySchema']>;
export type McpServerConfig = Zod.infer<ConfigSchemas['mcpServerSchema']>;
export type HookGroupConfig = Zod.infer<ConfigSchemas['hookGroupSchema']>;
export type SandboxConfig = NonNullable<LoomConfig['sandbox']>;
export type WebConfig = NonNullable<LoomConfig['web']>;
export type HooksConfig = Partial<Record<HookEventName, HookGroupConfig[]>>;
