/**
 * `loom agents list`: the agent types a `subagent {agent_type}` call can name in this workspace:
 * the built-in ones and those of `.loom/agents/`, `.claude/agents/` and `$LOOM_HOME/agents/`,
 * with where each comes from and what it hides; a file that cannot be read is listed with its
 * problem. Reads only; it starts no agent and needs no model.
 */
import { resolve } from 'node:path';
import { loomHome } from '../core/home.js';
import { loadAgentTypes } from '../project/agent-types.js';
import type { AgentType, AgentTypeProblem, AgentTypes } from '../project/agent-types-contract.js';
import { plainTable } from './plain-table.js';

const COLUMNS = ['NAME', 'ORIGIN', 'DESCRIPTION', 'PATH'] as const;

export interface AgentsListOptions {
  cwd?: string;
  json?: boolean;
}

/** The `--json` line of one agent type. */
export function agentTypeJson(type: AgentType): Record<string, unknown> {
  return {
    name: type.name,
    origin: type.origin,
    description: type.description,
    ...(type.path !== undefined ? { path: type.path } : {}),
    ...(type.tools !== undefined ? { tools: type.tools } : {}),
    ...(type.model !== undefined ? { model: type.model } : {}),
    ...(type.effort !== undefined ? { effort: type.effort } : {}),
    ...(type.hides !== undefined ? { hides: type.hides } : {}),
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

export function formatAgentTypes(types: AgentTypes): string {
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
  return plainTable(COLUMNS, rows);
}

/** Exit 0; a malformed file is listed, not a failure. */
export function agentsListCommand(options: AgentsListOptions): number {
  const types = loadAgentTypes({
    workspace: resolve(options.cwd ?? process.cwd()),
    home: loomHome(),
  });
  if (options.json) {
    for (const type of types.list())
      process.stdout.write(`${JSON.stringify(agentTypeJson(type))}\n`);
    for (const problem of types.problems()) {
      process.stdout.write(`${JSON.stringify(agentProblemJson(problem))}\n`);
    }
    return 0;
  }
  process.stdout.write(formatAgentTypes(types));
  return 0;
}
