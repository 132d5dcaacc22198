/**
 * Enforces config permission rules in the tool pipeline's pre-execute stage: the first rule
 * whose tool and argument patterns match decides allow, deny or ask; no match passes the call on.
 * A pattern matches the whole argument text, `*` standing for any run of characters.
 */
import type { Context, Disposer } from '../core/context.js';
import { type PreExecuteDecision, toolPreExecute } from '../core/tool-pipeline.js';
import type { PermissionRule } from './schema.js';

function patternToRegExp(pattern: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[\\s\\S]*')}$`);
}

interface CompiledRule {
  rule: PermissionRule;
  matchers: Array<[string, RegExp]>;
}

function argumentText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function matchesRule(compiled: CompiledRule, tool: string, args: unknown): boolean {
  if (compiled.rule.tool !== '*' && compiled.rule.tool !== tool) return false;
  const record = (args ?? {}) as Record<string, unknown>;
  return compiled.matchers.every(([name, pattern]) => {
    const text = argumentText(record[name]);
    return text !== undefined && pattern.test(text);
  });
}

export function compileRules(rules: PermissionRule[]): CompiledRule[] {
  return rules.map((rule) => ({
    rule,
    matchers: Object.entries(rule.match ?? {}).map(([name, pattern]) => [
      name,
      patternToRegExp(pattern),
    ]),
  }));
}

export function installPermissionRules(context: Context, rules: PermissionRule[]): Disposer {
  const compiled = compileRules(rules);
  return context.use(
    toolPreExecute,
    (request, next): PreExecuteDecision | Promise<PreExecuteDecision> => {
      const hit = compiled.find((candidate) =>
        matchesRule(candidate, request.name, request.arguments),
      );
      if (!hit) return next(request);
      const describe =
        hit.rule.reason ??
        `a permission rule (${hit.rule.action} ${hit.rule.tool} ${JSON.stringify(hit.rule.match ?? {})})`;
      switch (hit.rule.action) {
        case 'allow':
          return { action: 'allow' };
        case 'deny':
          return { action: 'deny', reason: `denied by ${describe}` };
        case 'ask':
          return { action: 'ask', reason: `${describe} asks for approval` };
      }
    },
  );
}
