/**
 * A connected server's tools as agent tools: `mcp__SERVER__TOOL` (characters a provider refuses
 * become `_`), the server's description, and its input JSON Schema passed to the model as it is,
 * once ajv has compiled it in its dialect (draft-07 or 2020-12). A tool whose name is too long,
 * repeats another's, whose schema ajv rejects, or that must run as a task on a server that runs
 * none is left out with the reason, never registered broken. Calls go to the server connection
 * (as tasks for `execution.taskSupport: "required"`), their progress becomes the call's
 * progress (`toolProgressReported`), their time limit is `mcp.maxCallMs`; errors become error
 * results.
 */

import { parametersProblem } from '../core/tool-arguments.js';
import type { ToolDefinition } from '../core/tool-contract.js';
import { toolProgressReported } from '../core/tool-execution.js';
import type { JsonSchema } from '../llm/contract.js';
import { MCP_NAME_SEPARATOR, MCP_TOOL_PREFIX, type McpToolReport } from './contract.js';
import { resultWithImages } from './result-images.js';
import type { ListedTool, ServerConnection } from './server-connection.js';

/** What providers accept as a tool name (see core/tool-pipeline.ts). */
const MAX_TOOL_NAME = 64;

export function agentToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${server}${MCP_NAME_SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

export interface ServerTools {
  tools: ToolDefinition[];
  reports: McpToolReport[];
}

export interface ServerToolOptions {
  outputLimit: number;
  /** Each call's time limit in the tool pipeline (`mcp.maxCallMs`). */
  maxCallMs: number;
}

export function serverTools(
  connection: ServerConnection,
  listed: readonly ListedTool[],
  options: ServerToolOptions,
): ServerTools {
  const tools: ToolDefinition[] = [];
  const reports: McpToolReport[] = [];
  const taken = new Set<string>();
  for (const tool of listed) {
    const name = agentToolName(connection.name, tool.name);
    const leaveOut = (problem: string) => reports.push({ name: tool.name, problem });
    if (name.length > MAX_TOOL_NAME) {
      leaveOut(`its name ${name} is longer than ${MAX_TOOL_NAME} characters`);
      continue;
    }
    if (taken.has(name)) {
      leaveOut(`its name becomes ${name}, as another tool's does`);
      continue;
    }
    const task = tool.execution?.taskSupport === 'required';
    if (task && !connection.runsTasks) {
      leaveOut(
        'it must run as a task (execution.taskSupport: "required"), but the server does not declare tasks for tools/call (capabilities.tasks.requests.tools.call)',
      );
      continue;
    }
    const definition: ToolDefinition = {
      name,
      description: describe(connection.name, tool),
      // Past the first few MCP tools an agent sees, offered by name until loaded (core/tool-loading).
      deferral: 'numerous',
      parameters: tool.inputSchema as JsonSchema,
      timeoutMs: options.maxCallMs,
      execute: async (args, execution) => {
        const result = await connection.call(tool.name, args, {
          signal: execution.signal,
          task,
          caller: {
            agentId: execution.agentId,
            context: execution.context,
            tool: tool.name,
            call: {
              callId: execution.callId,
              name: execution.name,
              arguments: execution.arguments,
              agentId: execution.agentId,
              turnId: execution.turnId,
              tool: definition,
              signal: execution.signal,
            },
          },
          onProgress: (update) => {
            if (!execution.signal.aborted) {
              execution.context.emit(toolProgressReported, { execution, ...update });
            }
          },
        });
        return resultWithImages(result, options.outputLimit, execution);
      },
    };
    const problem = parametersProblem(definition);
    if (problem) {
      leaveOut(problem);
      continue;
    }
    taken.add(name);
    tools.push(definition);
    reports.push({ name: tool.name, agentName: name, ...(task ? { task: true as const } : {}) });
  }
  return { tools, reports };
}

function describe(server: string, tool: ListedTool): string {
  const text = tool.description?.trim() || tool.title?.trim() || `the ${tool.name} tool`;
  return `${text}\n(from the MCP server ${server})`;
}
