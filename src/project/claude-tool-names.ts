/**
 * Claude Code's tool names as Loom's, for what is read from `.claude/`: an agent's `tools:` list
 * and a hook's `matcher` name Claude Code's tools. A name that is not Claude Code's is kept as
 * written (it may be Loom's own, or an MCP tool's).
 */
const LOOM_NAMES: Readonly<Record<string, string>> = {
  Bash: 'bash',
  Read: 'read_file',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Glob: 'glob',
  Grep: 'grep',
  WebFetch: 'web_fetch',
  WebSearch: 'web_search',
  Task: 'subagent',
  Agent: 'subagent',
  TodoWrite: 'todo_write',
  Skill: 'skill',
};

/** Loom's name for `name`: its mapping when Claude Code has such a tool, else `name`. */
export function loomToolName(name: string): string {
  return LOOM_NAMES[name] ?? name;
}

/** Claude Code's name for Loom's `name`, for payloads a Claude Code hook script reads. */
export function claudeToolName(name: string): string {
  for (const [claude, loom] of Object.entries(LOOM_NAMES)) if (loom === name) return claude;
  return name;
}

/** Every Claude Code name of Loom's `name` (`edit_file`: `Edit`, `MultiEdit`); empty when none. */
export function claudeToolNames(name: string): string[] {
  return Object.entries(LOOM_NAMES)
    .filter(([, loom]) => loom === name)
    .map(([claude]) => claude);
}
