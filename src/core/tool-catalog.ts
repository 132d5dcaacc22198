/**
 * The tools that agents of one runtime may be given, declared by whoever registers them (the
 * built-in tools, each layer's install), so config that names tools, such as permission rules,
 * is checked against real tool and argument names before any agent starts. Declaring gives no
 * agent a tool and must never run one; every declaration returns its undo.
 */
import type { Disposer } from './context.js';
import type { ToolDefinition } from './tool-contract.js';

/** What a declaration needs: the name, and the JSON Schema whose `properties` name the arguments. */
export type DeclaredTool = Pick<ToolDefinition, 'name' | 'parameters'>;

export interface CatalogEntry {
  name: string;
  /** The argument names; undefined when the schema names none, so any argument may appear. */
  argumentNames: readonly string[] | undefined;
  /**
   * Why no child agent (delegation depth 1 or more) is ever given it, as its declarations said;
   * absent when a child may be (a name declared twice: unless every declaration says why not).
   */
  notForChildren?: string;
}

export interface DeclareOptions {
  /**
   * Why no child agent is ever given these tools, said so that an agent type listing one can be
   * told (`only root agents get it: ...`); absent: a child may be given them.
   */
  notForChildren?: string;
}

function argumentNames(parameters: DeclaredTool['parameters']): string[] | undefined {
  const properties = (parameters as { properties?: unknown }).properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  return Object.keys(properties);
}

export class ToolCatalog {
  private readonly declarations: Array<readonly DeclaredTool[]> = [];
  private readonly childReasons = new Map<readonly DeclaredTool[], string>();

  declare(tools: readonly DeclaredTool[], options: DeclareOptions = {}): Disposer {
    const entry = [...tools];
    this.declarations.push(entry);
    if (options.notForChildren !== undefined) this.childReasons.set(entry, options.notForChildren);
    return () => {
      const index = this.declarations.indexOf(entry);
      if (index >= 0) this.declarations.splice(index, 1);
      this.childReasons.delete(entry);
    };
  }

  /** Every declared tool, in declaration order (a name declared twice appears twice). */
  tools(): DeclaredTool[] {
    return this.declarations.flat();
  }

  /** One entry a name; a name declared twice keeps the union of its argument names. */
  entries(): CatalogEntry[] {
    const byName = new Map<string, CatalogEntry>();
    // A name some declaration gives children too is one a child may have.
    const forChildren = new Set<string>();
    for (const declaration of this.declarations) {
      const reason = this.childReasons.get(declaration);
      for (const tool of declaration) {
        const names = argumentNames(tool.parameters);
        const known = byName.get(tool.name);
        if (!known) byName.set(tool.name, { name: tool.name, argumentNames: names });
        else if (known.argumentNames && names) {
          known.argumentNames = [...new Set([...known.argumentNames, ...names])];
        } else known.argumentNames = undefined;
        const entry = byName.get(tool.name) as CatalogEntry;
        if (reason === undefined) forChildren.add(tool.name);
        else if (entry.notForChildren === undefined) entry.notForChildren = reason;
      }
    }
    for (const name of forChildren) delete (byName.get(name) as CatalogEntry).notForChildren;
    return [...byName.values()];
  }
}
