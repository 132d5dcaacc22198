/**
 * `loom agents list`: the agent types a `subagent {agent_type}` call can name in this workspace:
 * the built-in ones and those of `.loom/agents/`, `.claude/agents/` and `$LOOM_HOME/agents/`,
 * with where each comes from and what it hides; a file that cannot be read is listed with its
 * problem. A type whose `tools` name tools no child can be given (an unknown name, a tool only
 * root agents get, an MCP server that is not configured) gets a note line after the table
 * (`unreachableTools` in `--json`), judged against the tools `loom run` would declare here.
 * Reads only; it starts no agent, no MCP server, and needs no model.
 */
import { resolve } from 'node:path';
import { errorMessage } from '../base/errors.js';
import { loadConfig } from '../config/load-config.js';
import { loomHome } from '../core/home.js';
import type { CatalogEntry } from '../core/tool-catalog.js';
import { declaredServers } from '../mcp/server-list.js';
import {
  type ToolReachOptions,
  type UnreachableTool,
  unreachableTools,
  unreachableToolsNote,
} from '../project/agent-type-tools.js';
import { loadAgentTypes } from '../project/agent-types.js';
import type { AgentType, AgentTypeProblem, AgentTypes } from '../project/agent-types-contract.js';
import { buildRuntime } from './build-runtime.js';
import { plainTable } from './plain-table.js';

const COLUMNS = ['NAME', 'ORIGIN', 'DESCRIPTION', 'PATH'] as const;

export interface AgentsListOptions {
  cwd?: string;
  json?: boolean;
}

/**
 * What a child of this workspace could be given: the tool catalog of the runtime `loom run`
 * builds here (no agent, no MCP server started) and the configured MCP servers, whose tools are
 * unknown until they start; or why it could not be built (the types' tools go unchecked).
 */
export type ToolReach =
  | { catalog: readonly CatalogEntry[]; options: ToolReachOptions }
  | { problem: string };

/** The catalog does not depend on the model: a spec that needs no file, and whose key is read only at a request. */
const CATALOG_MODEL = 'deepseek:deepseek-chat';

export function workspaceToolReach(workspace: string, home: string): ToolReach {
  try {
    const config = loadConfig(home, workspace);
    const setup = buildRuntime({ cwd: workspace, home, config, model: CATALOG_MODEL });
    return {
      catalog: setup.runtime.toolCatalog.entries(),
      options: {
        configuredMcpServers: declaredServers(config, workspace).map((server) => server.name),
      },
    };
  } catch (error) {
    return { problem: errorMessage(error) };
  }
}

function unreachableOf(type: AgentType, reach: ToolReach | undefined): UnreachableTool[] {
  if (!reach || 'problem' in reach) return [];
  return unreachableTools(type, reach.catalog, reach.options);
}

/** The `--json` line of one agent type; `unreachableTools` only when its list names some. */
export function agentTypeJson(type: AgentType, reach?: ToolReach): Record<string, unknown> {
  const unreachable = unreachableOf(type, reach);
  return {
    name: type.name,
    origin: type.origin,
    description: type.description,
    ...(type.path !== undefined ? { path: type.path } : {}),
    ...(type.tools !== undefined ? { tools: type.tools } : {}),
    ...(type.model !== undefined ? { model: type.model } : {}),
    ...(type.effort !== undefined ? { effort: type.effort } : {}),
    ...(type.hides !== undefined ? { hides: type.hides } : {}),
    ...(unreachable.length > 0 ? { unreachableTools: unreachable } : {}),
  };
}

/** The `--json` line of a file that could not be read. */
export function agentProblemJson(problem: AgentTypeProblem): Record<string, unknown> {
  return {
    ...(problem.name !== undefined ? { name: problem.name } : {}),
    origin: problem.origin,
    path: problem.path,
    problem: problem.problem,
  };
}

function originCell(type: AgentType): string {
  if (!type.hides?.length) return type.origin;
  const hidden = type.hides.map((origin) => (origin === 'builtin' ? 'built-in' : origin));
  return `${type.origin} (hides ${hidden.join(', ')})`;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/** The table, then one note line per type whose list names tools no child can be given. */
export function formatAgentTypes(types: AgentTypes, reach?: ToolReach): string {
  const rows = [
    ...types
      .list()
      .map((type) => [type.name, originCell(type), firstLine(type.description), type.path ?? '-']),
    ...types
      .problems()
      .map((problem) => [
        problem.name ?? '-',
        problem.origin,
        `error: ${problem.problem}`,
        problem.path,
      ]),
  ];
  const notes = types
    .list()
    .map((type) => unreachableToolsNote(type, unreachableOf(type, reach)))
    .filter((note) => note !== undefined)
    .map((note) => `note: ${note}\n`);
  return plainTable(COLUMNS, rows) + notes.join('');
}

/** Exit 0; a malformed file is listed, not a failure. */
export function agentsListCommand(options: AgentsListOptions): number {
  const workspace = resolve(options.cwd ?? process.cwd());
  const home = loomHome();
  const types = loadAgentTypes({ workspace, home });
  const reach = types.list().some((type) => type.tools !== undefined)
    ? workspaceToolReach(workspace, home)
    : undefined;
  if (reach && 'problem' in reach) {
    process.stderr.write(`loom: the agent types' tool lists are not checked: ${reach.problem}\n`);
  }
  if (options.json) {
    for (const type of types.list())
      process.stdout.write(`${JSON.stringify(agentTypeJson(type, reach))}\n`);
    for (const problem of types.problems()) {
      process.stdout.write(`${JSON.stringify(agentProblemJson(problem))}\n`);
    }
    return 0;
  }
  process.stdout.write(formatAgentTypes(types, reach));
  return 0;
}
