/**
 * Checks permission rules against the tools a runtime declares, once every layer has declared
 * its tools: an unknown tool name or an argument name the tool does not take would otherwise
 * never match, silently. Rules naming MCP tools (`mcp__…`) are left unchecked: a server's tools
 * are known only once it has started. Every problem names the file, line and closest valid name.
 * Pure: it reads the catalog entries it is given and never installs anything.
 */

import { UserError } from '../base/errors.js';
import { closestName } from '../core/closest-name.js';
import type { CatalogEntry } from '../core/tool-catalog.js';
import { MCP_TOOL_PREFIX } from '../mcp/contract.js';
import { ruleOrigin } from './load-config.js';
import { derivedSubjectNames } from './permission-subjects.js';
import { matchesToolName } from './permissions.js';
import type { PermissionRule } from './schema.js';

export { closestName, editDistance } from '../core/closest-name.js';

function hint(name: string, names: readonly string[], kind: string): string {
  const closest = closestName(name, names);
  if (closest) return `did you mean ${closest}?`;
  return `known ${kind}: ${[...names].sort().join(', ') || 'none'}`;
}

function where(rule: PermissionRule, position: number, line: number | undefined): string {
  const origin = ruleOrigin(rule);
  const index = origin?.index ?? position;
  const at = line ?? origin?.line;
  const place = origin ? `${origin.file}${at ? `:${at}` : ''}: ` : '';
  return `${place}permissions[${index}]`;
}

/** Every problem of `rules`, one line each; empty when all are sound. */
export function permissionRuleProblems(
  rules: readonly PermissionRule[],
  tools: readonly CatalogEntry[],
): string[] {
  const problems: string[] = [];
  const toolNames = tools.map((tool) => tool.name);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  rules.forEach((rule, position) => {
    const origin = ruleOrigin(rule);
    // An MCP server's tools (and their arguments) are known only once it runs.
    if (rule.tool.startsWith(MCP_TOOL_PREFIX)) return;
    const entry = byName.get(rule.tool);
    const pattern = rule.tool !== '*' && rule.tool.includes('*');
    const matched = pattern ? tools.filter((tool) => matchesToolName(rule.tool, tool.name)) : [];
    if (rule.tool !== '*' && !entry && matched.length === 0) {
      const unknown = pattern ? 'no tool matches the pattern' : 'unknown tool';
      problems.push(
        `${where(rule, position, origin?.toolLine)}.tool: ${unknown} "${rule.tool}" (${hint(rule.tool, toolNames, 'tools')})`,
      );
      return;
    }
    // A tool whose schema names no arguments takes any; `*` is checked against the named ones.
    if (entry && entry.argumentNames === undefined) return;
    if (matched.some((tool) => tool.argumentNames === undefined)) return;
    const candidates = entry ? [entry] : pattern ? matched : tools;
    const argumentNames = [
      ...new Set(
        candidates.flatMap((tool) => [
          ...(tool.argumentNames ?? []),
          ...derivedSubjectNames(tool.name),
        ]),
      ),
    ];
    for (const key of Object.keys(rule.match ?? {})) {
      if (argumentNames.includes(key)) continue;
      const owner = entry
        ? `tool ${entry.name} has no argument`
        : pattern
          ? `no tool matching ${rule.tool} has an argument`
          : 'no tool has an argument';
      problems.push(
        `${where(rule, position, origin?.matchLines[key])}.match.${key}: ${owner} "${key}" (${hint(key, argumentNames, 'arguments')})`,
      );
    }
  });
  return problems;
}

/** Throws one INVALID_CONFIG UserError listing every problem of `rules`. */
export function checkPermissionRules(
  rules: readonly PermissionRule[],
  tools: readonly CatalogEntry[],
): void {
  const problems = permissionRuleProblems(rules, tools);
  if (problems.length === 0) return;
  throw new UserError('INVALID_CONFIG', `invalid config:\n${problems.join('\n')}`);
}
