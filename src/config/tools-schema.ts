/**
 * The schema of config's `tools:` block: how agents are shown their tools (presentation, deferred
 * tools), Code Mode's limits and `bash`'s settings. Built with the zod `schema.ts` hands it, like
 * every config schema; it never reads anything.
 */
import type { z as Zod } from 'zod';
import { TOOL_PRESENTATIONS } from '../code-mode/contract.js';

/** What providers accept as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function toolsConfigSchema(z: typeof Zod) {
  return z.strictObject({
    /**
     * How agents are shown their tools: `native` (default) offers each tool; `code` offers
     * `run_code` alone with the others as a generated SDK; `both` offers all and `run_code`.
     */
    presentation: z.enum(TOOL_PRESENTATIONS).optional(),
    /**
     * Whether tools a turn rarely needs (schedules, goals, jobs, questions, workflows, background
     * subagents' messaging, recall, and MCP tools past `eagerMcpTools`) are offered by name and
     * one line until the model loads them with `load_tools`; default true. false: all in full.
     */
    deferred: z.boolean().optional(),
    /** Deferrable tools always offered in full, by name (`mcp__SERVER__TOOL` for MCP); default none. */
    alwaysLoad: z.array(z.string().regex(TOOL_NAME, 'must be a tool name')).optional(),
    /** How many MCP tools an agent is offered in full before the rest are deferred; default 20. */
    eagerMcpTools: z.number().int().min(0).max(10000).optional(),
    /** Limits of one `run_code` program. */
    codeMode: z
      .strictObject({
        /** Wall time of one program, tool calls included; default 120000 ms. */
        timeoutMs: z.number().int().min(100).max(3_600_000).optional(),
        /** The program's heap; default 64 MB. */
        memoryMb: z.number().int().min(8).max(4096).optional(),
        /** One call's console output and returned text kept, together; default 65536 bytes. */
        outputBytes: z.number().int().min(1024).max(16_777_216).optional(),
      })
      .optional(),
    /** Default bash timeout; default 120000 ms. */
    bashTimeoutMs: z.number().int().min(1000).max(600000).optional(),
    /** Folders outside the workspace that file tools may use; default none. */
    extraRoots: z.array(z.string().min(1)).optional(),
    bash: z
      .strictObject({
        env: z
          .strictObject({
            /**
             * Credential variables `bash` commands may see after all; by default every key a
             * route, provider or MCP server uses and every `*_API_KEY`, `*_TOKEN`, `*_SECRET`
             * is left out of their environment. Default none.
             */
            passthrough: z
              .array(
                z
                  .string()
                  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'),
              )
              .optional(),
          })
          .optional(),
      })
      .optional(),
  });
}
