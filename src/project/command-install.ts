/**
 * Installs custom commands into a runtime: the catalog read once from the command folders, its
 * problems reported on standard error (one line each), and the catalog on the runtime's root
 * scope, where the terminal, the ACP server and `loom run` find it. Installs no tool and no
 * prompt section: a command acts only when the person types it.
 */
import type { Disposer } from '../core/context.js';
import type { AgentRuntime } from '../core/runtime.js';
import { type CommandCatalog, commandCatalogKey } from './command-contract.js';
import { loadCommands } from './command-files.js';
import { problemLine } from './markdown-front-matter.js';

export interface CommandsLayer {
  catalog: CommandCatalog;
  dispose: Disposer;
}

export function installCommands(
  runtime: AgentRuntime,
  report: (line: string) => void = (line) => process.stderr.write(line),
): CommandsLayer {
  const catalog = loadCommands({ workspace: runtime.cwd, home: runtime.home });
  for (const problem of catalog.problems) report(`loom: command ${problemLine(problem)}\n`);
  return { catalog, dispose: runtime.root.provide(commandCatalogKey, catalog) };
}
