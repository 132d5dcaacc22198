/**
 * Loads a workspace's hooks: config `hooks:` (already checked by the config schema) and the
 * `hooks` block of `.claude/settings.json` and `.claude/settings.local.json`, Claude Code's
 * shared and personal project settings (both, as Claude Code runs both). Of a Claude Code file
 * only `hooks` is read; in it, events Loom does not run (`SessionEnd`, …) and hooks that are not
 * commands (`type: "prompt"`) are left out, as the README says, and anything else that is wrong
 * is a UserError naming the file and field. Reads files only; never runs a hook.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, UserError } from '../base/errors.js';
import {
  HOOK_EVENTS,
  type HookEventName,
  type HooksConfig,
  hookMatcherProblem,
  MAX_HOOK_TIMEOUT_SECONDS,
} from '../config/schema.js';
import { loomToolName } from './claude-tool-names.js';
import { DEFAULT_HOOK_TIMEOUT_MS, type HookCommand, type HookGroup } from './hook-contract.js';

/** Claude Code's project settings files, shared first, then the person's own. */
export const CLAUDE_SETTINGS_FILES = ['.claude/settings.json', '.claude/settings.local.json'];

/** Events whose matcher names a tool. */
const TOOL_EVENTS: readonly HookEventName[] = ['PreToolUse', 'PostToolUse'];

/** `matcher` anchored at both ends; none for "everything" (absent, empty or `*`). */
export function matcherPattern(matcher: string | undefined): RegExp | undefined {
  if (matcher === undefined || matcher === '' || matcher === '*') return undefined;
  return new RegExp(`^(?:${matcher})$`);
}

/** Config's hooks; a matcher naming Claude Code's tools instead of Loom's is refused. */
export function configHooks(hooks: HooksConfig | undefined, file: string): HookGroup[] {
  const groups: HookGroup[] = [];
  for (const event of HOOK_EVENTS) {
    (hooks?.[event] ?? []).forEach((group, index) => {
      const claudeNames = TOOL_EVENTS.includes(event)
        ? (group.matcher ?? '').split('|').filter((name) => loomToolName(name) !== name)
        : [];
      if (claudeNames.length > 0) {
        const loom = claudeNames.map(loomToolName).join(', ');
        throw new UserError(
          'INVALID_CONFIG',
          `invalid config:\n${file}: hooks.${event}.${index}.matcher: ${claudeNames.join(', ')} is Claude Code's name; config.yaml names Loom's tools (${loom}), or put the hook in .claude/settings.json`,
        );
      }
      const pattern = matcherPattern(group.matcher);
      groups.push({
        event,
        origin: 'config',
        file,
        ...(pattern ? { pattern } : {}),
        hooks: group.hooks.map((hook) => ({
          command: hook.command,
          timeoutMs: hook.timeout !== undefined ? hook.timeout * 1000 : DEFAULT_HOOK_TIMEOUT_MS,
        })),
      });
    });
  }
  return groups;
}

/** The hooks of the workspace's Claude Code settings files, in file order. */
export function claudeHooks(workspace: string): HookGroup[] {
  return CLAUDE_SETTINGS_FILES.flatMap((name) => claudeFileHooks(join(workspace, name)));
}

function claudeFileHooks(file: string): HookGroup[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw invalid(file, `cannot be read: ${errorMessage(error)}`);
  }
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `is not valid JSON: ${errorMessage(error)}`);
  }
  if (!isRecord(settings)) throw invalid(file, 'must be a JSON object');
  const { hooks } = settings;
  if (hooks === undefined) return [];
  if (!isRecord(hooks)) throw invalid(file, 'hooks: must be an object of events');
  const problems: string[] = [];
  const groups: HookGroup[] = [];
  for (const [event, list] of Object.entries(hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) continue;
    const where = `hooks.${event}`;
    if (!Array.isArray(list)) {
      problems.push(`${where}: must be a list of {matcher, hooks}`);
      continue;
    }
    list.forEach((entry, index) => {
      const group = claudeGroup(event as HookEventName, entry, `${where}.${index}`, problems);
      if (group) groups.push({ ...group, file });
    });
  }
  if (problems.length > 0) throw invalid(file, problems.join(`\n${file}: `));
  return groups;
}

function claudeGroup(
  event: HookEventName,
  entry: unknown,
  where: string,
  problems: string[],
): Omit<HookGroup, 'file'> | undefined {
  if (!isRecord(entry)) {
    problems.push(`${where}: must be an object {matcher?, hooks}`);
    return undefined;
  }
  const { matcher } = entry;
  if (matcher !== undefined && typeof matcher !== 'string') {
    problems.push(`${where}.matcher: must be a string`);
    return undefined;
  }
  const matcherProblem = matcher === undefined ? undefined : hookMatcherProblem(matcher);
  if (matcherProblem) {
    problems.push(`${where}.matcher: ${matcherProblem}`);
    return undefined;
  }
  if (!Array.isArray(entry.hooks)) {
    problems.push(`${where}.hooks: must be a list of {type: "command", command, timeout?}`);
    return undefined;
  }
  const commands: HookCommand[] = [];
  entry.hooks.forEach((hook, index) => {
    const command = claudeCommand(hook, `${where}.hooks.${index}`, problems);
    if (command) commands.push(command);
  });
  if (commands.length === 0) return undefined;
  const pattern = matcherPattern(matcher);
  return { event, origin: 'claude', ...(pattern ? { pattern } : {}), hooks: commands };
}

function claudeCommand(hook: unknown, where: string, problems: string[]): HookCommand | undefined {
  if (!isRecord(hook)) {
    problems.push(`${where}: must be an object {type: "command", command, timeout?}`);
    return undefined;
  }
  // Claude Code's other kinds (`prompt`, `agent`) ask a model; Loom runs commands only.
  if (hook.type !== 'command') {
    if (typeof hook.type !== 'string') problems.push(`${where}.type: must be "command"`);
    return undefined;
  }
  if (typeof hook.command !== 'string' || hook.command.trim() === '') {
    problems.push(`${where}.command: must be a shell command`);
    return undefined;
  }
  const { timeout } = hook;
  if (
    timeout !== undefined &&
    (typeof timeout !== 'number' || !(timeout > 0) || timeout > MAX_HOOK_TIMEOUT_SECONDS)
  ) {
    problems.push(
      `${where}.timeout: must be a number of seconds above 0 and at most ${MAX_HOOK_TIMEOUT_SECONDS}`,
    );
    return undefined;
  }
  return {
    command: hook.command,
    timeoutMs: typeof timeout === 'number' ? timeout * 1000 : DEFAULT_HOOK_TIMEOUT_MS,
  };
}

function invalid(file: string, problem: string): UserError {
  return new UserError('INVALID_CONFIG', `invalid Claude Code settings:\n${file}: ${problem}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
