/**
 * The agent types of a workspace: the `NAME.md` files of `setupFolders('agents')` (the project's
 * `.loom/agents/`, its `.claude/agents/`, then `$LOOM_HOME/agents/`; one level of sub-folders
 * gives plugin types `PLUGIN:NAME`), then the built-in ones. The first folder to define a name
 * wins; a malformed file is a problem that claims its name (a type it would hide is not used in
 * its place) and leaves every other type loaded. Read once, when made; never writes.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { errorMessage } from '../base/errors.js';
import { compareIgnoringCase } from '../base/text-order.js';
import { BUILTIN_AGENT_TYPES } from './agent-builtins.js';
import { AGENT_NAME, parseAgentFile } from './agent-file.js';
import type { AgentType, AgentTypeProblem, AgentTypes } from './agent-types-contract.js';
import { type SetupFolder, type SetupOrigin, setupFolders } from './project-folders.js';

/** An agent file larger than this is refused: a prompt is text a person wrote, not data. */
export const MAX_AGENT_FILE_BYTES = 256 * 1024;

interface Entry {
  /** `reviewer`, or `PLUGIN:reviewer` for a file in a sub-folder. */
  prefix: string;
  path: string;
}

function isErrorCode(error: unknown, ...codes: string[]): boolean {
  return codes.includes((error as NodeJS.ErrnoException | null)?.code ?? '');
}

/** The names in `folder`, sorted; none when it does not exist. */
function namesIn(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch (error) {
    if (isErrorCode(error, 'ENOENT', 'ENOTDIR')) return [];
    throw error;
  }
}

function kindOf(path: string): 'file' | 'folder' | 'other' {
  try {
    const stat = statSync(path);
    return stat.isFile() ? 'file' : stat.isDirectory() ? 'folder' : 'other';
  } catch {
    return 'other';
  }
}

/** The `.md` files of one folder and of its plugin sub-folders, in name order. */
function entriesOf(folder: string): Entry[] {
  const entries: Entry[] = [];
  const subfolders: string[] = [];
  for (const name of namesIn(folder)) {
    const path = join(folder, name);
    const kind = kindOf(path);
    if (kind === 'file' && name.endsWith('.md')) entries.push({ prefix: '', path });
    else if (kind === 'folder' && AGENT_NAME.test(name)) subfolders.push(name);
  }
  for (const plugin of subfolders) {
    for (const name of namesIn(join(folder, plugin))) {
      const path = join(folder, plugin, name);
      if (name.endsWith('.md') && kindOf(path) === 'file') {
        entries.push({ prefix: `${plugin}:`, path });
      }
    }
  }
  return entries;
}

type Read =
  | { kind: 'valid'; type: AgentType }
  | { kind: 'invalid'; problem: AgentTypeProblem & { name: string } };

function readEntry(entry: Entry, origin: SetupOrigin): Read {
  const stem = basename(entry.path, '.md');
  const invalid = (name: string, problem: string): Read => ({
    kind: 'invalid',
    problem: { name: `${entry.prefix}${name}`, origin, path: entry.path, problem },
  });
  let text: string;
  try {
    if (statSync(entry.path).size > MAX_AGENT_FILE_BYTES) {
      return invalid(stem, `the file is larger than ${MAX_AGENT_FILE_BYTES / 1024} KB`);
    }
    text = readFileSync(entry.path, 'utf8');
  } catch (error) {
    return invalid(stem, `cannot read the file: ${errorMessage(error)}`);
  }
  const parsed = parseAgentFile(text, stem);
  if (parsed.kind === 'invalid') return invalid(parsed.name, parsed.problem);
  const type = { ...parsed.type, name: `${entry.prefix}${parsed.type.name}` };
  return { kind: 'valid', type: { ...type, origin, path: entry.path } };
}

/** A copy no caller can change the service through. */
function copyOf(type: AgentType): AgentType {
  return {
    ...type,
    ...(type.tools ? { tools: [...type.tools] } : {}),
    ...(type.hides ? { hides: [...type.hides] } : {}),
  };
}

const byName = (left: AgentType, right: AgentType) => compareIgnoringCase(left.name, right.name);

/** Reads the agent types of `workspace` and `home` ($LOOM_HOME) now. */
export function loadAgentTypes(where: { workspace: string; home: string }): AgentTypes {
  return agentTypesFrom(setupFolders('agents', where));
}

export function agentTypesFrom(folders: readonly SetupFolder[]): AgentTypes {
  const types = new Map<string, AgentType>();
  /** Names a malformed file claims, with the origin of the folder that held it. */
  const claimed = new Map<string, SetupOrigin>();
  const problems: AgentTypeProblem[] = [];
  const defineOnce = (type: AgentType) => {
    const winner = types.get(type.name);
    if (winner) {
      winner.hides = [...(winner.hides ?? []), type.origin];
      return;
    }
    if (!claimed.has(type.name)) types.set(type.name, type);
  };
  for (const folder of folders) {
    let entries: Entry[];
    try {
      entries = entriesOf(folder.path);
    } catch (error) {
      problems.push({
        origin: folder.origin,
        path: folder.path,
        problem: `cannot read the folder: ${errorMessage(error)}`,
      });
      continue;
    }
    for (const entry of entries) {
      const read = readEntry(entry, folder.origin);
      const name = read.kind === 'valid' ? read.type.name : read.problem.name;
      const earlier = types.get(name);
      if (earlier?.origin === folder.origin || claimed.get(name) === folder.origin) {
        problems.push({
          name,
          origin: folder.origin,
          path: entry.path,
          problem: `name: ${name} is already defined in this folder${earlier?.path ? ` by ${earlier.path}` : ''}`,
        });
        continue;
      }
      if (read.kind === 'valid') defineOnce(read.type);
      else {
        problems.push(read.problem);
        if (!types.has(name) && !claimed.has(name)) claimed.set(name, folder.origin);
      }
    }
  }
  for (const builtin of BUILTIN_AGENT_TYPES) defineOnce(copyOf(builtin));
  const sorted = [...types.values()].sort(byName);
  return {
    list: () => sorted.map(copyOf),
    find(name) {
      const type = types.get(name) ?? pluginFallback(types, claimed, name);
      return type ? copyOf(type) : undefined;
    },
    problems: () => problems.map((problem) => ({ ...problem })),
  };
}

/**
 * `PLUGIN:agent` with no `PLUGIN/agent.md` in any folder: the plain `agent` of a file (a plugin's
 * agent copied into `.claude/agents/`, say), never a built-in one.
 */
function pluginFallback(
  types: ReadonlyMap<string, AgentType>,
  claimed: ReadonlyMap<string, SetupOrigin>,
  name: string,
): AgentType | undefined {
  const colon = name.indexOf(':');
  if (colon <= 0 || claimed.has(name)) return undefined;
  const plain = types.get(name.slice(colon + 1));
  return plain && plain.origin !== 'builtin' ? plain : undefined;
}
