/**
 * Enforces config permission rules in the tool pipeline's pre-execute stage: the first rule
 * whose tool and argument patterns match decides allow, deny or ask; no match passes the call on.
 * A pattern matches the whole argument text, `*` standing for any run of characters; a rule may
 * also match a value derived from the arguments (`web_fetch`'s `host`, permission-subjects.ts).
 * A `bash` `command` pattern is matched against each simple command of the line instead (see
 * shell-commands.ts): deny and ask apply when any one matches, allow only when all do.
 */

import { assertNever } from '../base/errors.js';
import type { Context, Disposer } from '../core/context.js';
import { type PreExecuteDecision, toolPreExecute } from '../core/tool-pipeline.js';
import { toolsAvailable } from '../core/tool-presentation.js';
import { derivedSubject, isDerivedSubject } from './permission-subjects.js';
import type { PermissionRule } from './schema.js';
import { normaliseWhitespace, splitShellCommands } from './shell-commands.js';

/** The tool and argument whose patterns are matched per simple command of a shell line. */
export const SHELL_TOOL = 'bash';
export const SHELL_COMMAND_ARGUMENT = 'command';

function patternToRegExp(pattern: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[\\s\\S]*')}$`);
}

interface Matcher {
  argument: string;
  /** Anchored at both ends: the pattern must cover the whole text. */
  whole: RegExp;
  /** For a shell command: the pattern anywhere from a word's start, for lines it cannot see into. */
  anywhere: RegExp;
  /** The pattern is `*` alone and matches any text. */
  matchesAll: boolean;
}

interface CompiledRule {
  rule: PermissionRule;
  /** The rule's `tool`, anchored; `*` stands for any run of characters. */
  toolPattern: RegExp;
  matchers: Matcher[];
}

function argumentText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A restricting rule (deny, ask) matches a line when any simple command matches, or, when the
 * line hides commands, when the pattern occurs anywhere in it. An allow rule matches only a
 * line whose every simple command matches and that hides none (unless its pattern is `*`).
 */
function matchesShellLine(
  matcher: Matcher,
  line: string,
  action: PermissionRule['action'],
): boolean {
  if (matcher.matchesAll) return true;
  const { commands, text, opaque } = splitShellCommands(line);
  if (action === 'allow') {
    return (
      !opaque && commands.length > 0 && commands.every((command) => matcher.whole.test(command))
    );
  }
  if (commands.some((command) => matcher.whole.test(command))) return true;
  return matcher.whole.test(text) || (opaque && matcher.anywhere.test(text));
}

/** Whether a rule's `tool` (a name, or a pattern with `*`) names `tool`. */
export function matchesToolName(pattern: string, tool: string): boolean {
  if (!pattern.includes('*')) return pattern === tool;
  return patternToRegExp(pattern).test(tool);
}

export function matchesRule(compiled: CompiledRule, tool: string, args: unknown): boolean {
  if (!compiled.toolPattern.test(tool)) return false;
  const record = (args ?? {}) as Record<string, unknown>;
  return compiled.matchers.every((matcher) => {
    const value = record[matcher.argument];
    if (tool === SHELL_TOOL && matcher.argument === SHELL_COMMAND_ARGUMENT) {
      return typeof value === 'string' && matchesShellLine(matcher, value, compiled.rule.action);
    }
    const text = isDerivedSubject(tool, matcher.argument)
      ? derivedSubject(tool, matcher.argument, record)
      : argumentText(value);
    return text !== undefined && matcher.whole.test(text);
  });
}

/** Characters around a word of a shell line: blanks, operators, quotes and substitution marks. */
const wordEdge = '[\\s;&|()<>`"\'$]';

function compileMatcher(tool: string, argument: string, pattern: string): Matcher {
  const shell = (tool === SHELL_TOOL || tool === '*') && argument === SHELL_COMMAND_ARGUMENT;
  const source = shell ? normaliseWhitespace(pattern) : pattern;
  const whole = patternToRegExp(source);
  return {
    argument,
    whole,
    anywhere: new RegExp(`(?<=^|${wordEdge})${whole.source.slice(1, -1)}(?=$|${wordEdge})`),
    matchesAll: /^\**$/.test(source) && source !== '',
  };
}

export function compileRules(rules: PermissionRule[]): CompiledRule[] {
  return rules.map((rule) => ({
    rule,
    toolPattern: patternToRegExp(rule.tool),
    matchers: Object.entries(rule.match ?? {}).map(([argument, pattern]) =>
      compileMatcher(rule.tool, argument, pattern),
    ),
  }));
}

/**
 * Whether the rules deny every call of `tool`, whatever its arguments: the first rule for it that
 * has no argument pattern (or only `*`) denies, and every rule for it before that one denies too.
 */
export function deniesOutright(compiled: readonly CompiledRule[], tool: string): boolean {
  for (const candidate of compiled) {
    if (!candidate.toolPattern.test(tool)) continue;
    if (candidate.rule.action !== 'deny') return false;
    if (candidate.matchers.every((matcher) => matcher.matchesAll)) return true;
  }
  return false;
}

/** The action of the first rule matching a call of `tool` with `args`; undefined when none does. */
export function firstMatchingAction(
  compiled: readonly CompiledRule[],
  tool: string,
  args: unknown,
): PermissionRule['action'] | undefined {
  return compiled.find((candidate) => matchesRule(candidate, tool, args))?.rule.action;
}

export function installPermissionRules(context: Context, rules: PermissionRule[]): Disposer {
  const compiled = compileRules(rules);
  const stopFiltering = context.use(toolsAvailable, (input, next) =>
    next({ ...input, tools: input.tools.filter((tool) => !deniesOutright(compiled, tool.name)) }),
  );
  const stopDeciding = context.use(
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
        default:
          return assertNever(hit.rule.action, 'permission action');
      }
    },
  );
  return () => {
    stopDeciding();
    stopFiltering();
  };
}
