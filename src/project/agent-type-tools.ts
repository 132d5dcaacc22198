/**
 * Which tools of an agent type's `tools` list no child can ever be given, judged against a
 * runtime's tool catalog, each with why: a name no layer declares (with the closest known one), a
 * tool only root agents get (the catalog's `notForChildren`), an MCP tool of a server that is not
 * configured. Without this a type naming `schedule_list` or `raed_file` silently gives its child
 * fewer tools, in the worst case none. `loom agents list` shows them; the subagent tool and a
 * workflow's `agent({agentType})` say them in one note when such a child starts. Pure; never throws.
 */
import { closestName } from '../core/closest-name.js';
import type { CatalogEntry } from '../core/tool-catalog.js';
import type { AgentType } from './agent-types-contract.js';

/** An MCP tool's name: `mcp__SERVER__TOOL` (mcp/contract.ts `MCP_TOOL_PREFIX`; project imports no mcp). */
const MCP_PREFIX = 'mcp__';
const MCP_SEPARATOR = '__';

/**
 * Tools every child has or is given for its answer whatever its type lists (`load_tools`,
 * `structured_output`, `report`): never judged, and not "usable tools" of the type's own.
 */
const ANSWER_TOOLS: ReadonlySet<string> = new Set(['load_tools', 'structured_output', 'report']);

export interface UnreachableTool {
  /** As the type lists it. */
  name: string;
  /**
   * `unknown`: no such tool; `not-for-children`: a tool no child is given (only root agents get
   * it); `mcp-server`: the server it names is not configured.
   */
  kind: 'unknown' | 'not-for-children' | 'mcp-server';
  /** Why, as a phrase: `unknown tool, did you mean read_file?`, `only root agents get it: ...`. */
  reason: string;
  /** The closest known tool (or server) name, for a likely typo. */
  suggestion?: string;
}

export interface ToolReachOptions {
  /**
   * MCP servers that are configured but whose tools the catalog does not hold yet (none has
   * started: `loom agents list`). A name of theirs cannot be judged and is left alone; a name of
   * any other server is of a server that is not configured. Absent: the catalog holds the tools
   * of every connected server, so an MCP name it lacks is one no server offers.
   */
  configuredMcpServers?: readonly string[];
}

/** The tools of `type`'s list no child can be given, in the list's order; empty without a list. */
export function unreachableTools(
  type: Pick<AgentType, 'tools'>,
  catalog: readonly CatalogEntry[],
  options: ToolReachOptions = {},
): UnreachableTool[] {
  if (type.tools === undefined) return [];
  const byName = new Map(catalog.map((entry) => [entry.name, entry]));
  const known = catalog.map((entry) => entry.name);
  const found: UnreachableTool[] = [];
  for (const name of type.tools) {
    if (ANSWER_TOOLS.has(name)) continue;
    const entry = byName.get(name);
    if (entry) {
      if (entry.notForChildren !== undefined) {
        found.push({ name, kind: 'not-for-children', reason: entry.notForChildren });
      }
      continue;
    }
    const problem = name.startsWith(MCP_PREFIX)
      ? mcpProblem(name, known, options.configuredMcpServers)
      : unknownTool(name, known);
    if (problem) found.push(problem);
  }
  return found;
}

function unknownTool(name: string, known: readonly string[]): UnreachableTool {
  const suggestion = closestName(name, known);
  return {
    name,
    kind: 'unknown',
    reason: suggestion === undefined ? 'unknown tool' : `unknown tool, did you mean ${suggestion}?`,
    ...(suggestion !== undefined ? { suggestion } : {}),
  };
}

function mcpProblem(
  name: string,
  known: readonly string[],
  configured: readonly string[] | undefined,
): UnreachableTool | undefined {
  if (configured === undefined) {
    const suggestion = closestName(
      name,
      known.filter((candidate) => candidate.startsWith(MCP_PREFIX)),
    );
    const reason = 'no connected MCP server offers it';
    return {
      name,
      kind: 'unknown',
      reason: suggestion === undefined ? reason : `${reason}, did you mean ${suggestion}?`,
      ...(suggestion !== undefined ? { suggestion } : {}),
    };
  }
  // A configured server's tools are known only once it runs.
  if (configured.some((server) => name.startsWith(`${MCP_PREFIX}${server}${MCP_SEPARATOR}`))) {
    return undefined;
  }
  const rest = name.slice(MCP_PREFIX.length);
  const end = rest.indexOf(MCP_SEPARATOR);
  const server = end > 0 ? rest.slice(0, end) : rest;
  const suggestion = closestName(server, configured);
  const reason =
    configured.length === 0
      ? 'no MCP server is configured'
      : suggestion !== undefined
        ? `no MCP server ${server} is configured, did you mean ${suggestion}?`
        : `no MCP server ${server} is configured, only ${[...configured].sort().join(', ')}`;
  return {
    name,
    kind: 'mcp-server',
    reason,
    ...(suggestion !== undefined ? { suggestion } : {}),
  };
}

/**
 * The one-line note for a child started from `type` when its list names tools no child can be
 * given; undefined when it names none. It says plainly when the child is left with no tool of
 * its own at all (nothing beyond `load_tools` and its answer tools).
 */
export function unreachableToolsNote(
  type: Pick<AgentType, 'name' | 'tools'>,
  unreachable: readonly UnreachableTool[],
): string | undefined {
  if (unreachable.length === 0) return undefined;
  const missing = new Set(unreachable.map((tool) => tool.name));
  const usable = (type.tools ?? []).filter((name) => !missing.has(name) && !ANSWER_TOOLS.has(name));
  const list = unreachable.map((tool) => `${tool.name} (${tool.reason})`).join('; ');
  const plural = unreachable.length === 1 ? 'a tool' : 'tools';
  const left =
    usable.length === 0
      ? 'the child has NO usable tools at all'
      : `the child gets the rest (${usable.join(', ')})`;
  return `agent type ${type.name} lists ${plural} no child can be given: ${list}; ${left}`;
}
