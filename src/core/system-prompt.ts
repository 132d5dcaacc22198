/**
 * Builds the system prompt and the tool list a model request carries. Sections and variables
 * live in scopes (a child agent's scope can replace a parent's section, such as a persona, for
 * itself only); the `prompt/assemble` waterfall may then edit the draft freely, except that
 * protected sections and tools always come out exactly as their owner declared them. Assembly
 * must never mutate a registered tool definition or section, whatever a listener does.
 */

import { errorMessage, LoomError, UserError } from '../base/errors.js';
import type { ModelToolSpec } from '../llm/contract.js';
import { type Context, type Disposer, defineWaterfall, serviceKey } from './context.js';
import { deepFreeze } from './deep-freeze.js';

export interface PromptSection {
  id: string;
  /** Lower comes first; equal orders keep registration order (parent scope first). */
  order: number;
  text: string;
}

export type PromptVariables = Readonly<Record<string, string>>;

export interface SectionDefinition {
  id: string;
  order: number;
  /** A function is rendered at every assembly; it must return a string and should not throw. */
  text: string | ((variables: PromptVariables) => string);
}

export interface PromptDraft {
  sections: PromptSection[];
  tools: ModelToolSpec[];
}

export interface AssembledPrompt extends PromptDraft {
  /** The non-empty section texts joined by a blank line. */
  system: string;
}

/** Keeps a section (by id) and/or a tool (by name) exactly as canonically declared. */
export interface ProtectionPin {
  section?: string;
  tool?: string;
  /** Who asked for the protection, for diagnostics. */
  owner: string;
}

export interface SystemPromptOptions {
  context: Context;
  parent?: SystemPrompt;
  /** Variables of this scope; a child inherits its parent's and may override them. */
  variables?: Record<string, string>;
}

/** Edits the sorted, rendered draft. Terminal: the draft unchanged. Listeners get copies. */
export const promptAssemble = defineWaterfall<PromptDraft, PromptDraft>('prompt/assemble');
export const systemPromptKey = serviceKey<SystemPrompt>('prompt/system');

const VARIABLE_NAME = /^[A-Za-z_][\w.-]*$/;
/** `{{name}}` with a name nobody defined is left in the text as written. */
const PLACEHOLDER = /\{\{([A-Za-z_][\w.-]*)\}\}/g;

export class SystemPrompt {
  readonly context: Context;
  readonly parent: SystemPrompt | undefined;
  private readonly sections = new Map<string, SectionDefinition>();
  private readonly variables = new Map<string, { value: string }[]>();
  private readonly pins: ProtectionPin[] = [];

  constructor(options: SystemPromptOptions) {
    this.context = options.context;
    this.parent = options.parent;
    for (const [name, value] of Object.entries(options.variables ?? {})) {
      this.setVariable(name, value);
    }
  }

  child(context: Context): SystemPrompt {
    return new SystemPrompt({ context, parent: this });
  }

  /** Adds a section to this scope; a parent's section with the same id is replaced here only. */
  section(definition: SectionDefinition): Disposer {
    const { id, order, text } = definition;
    if (typeof id !== 'string' || id === '') {
      throw new UserError('INVALID_ARGUMENT', 'a prompt section needs a non-empty string id');
    }
    if (!Number.isFinite(order)) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `prompt section ${id}: order must be a finite number`,
      );
    }
    if (typeof text !== 'string' && typeof text !== 'function') {
      throw new UserError(
        'INVALID_ARGUMENT',
        `prompt section ${id}: text must be a string or function`,
      );
    }
    if (this.sections.has(id)) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `prompt section ${id} already exists in ${this.context.name}`,
      );
    }
    const entry = { id, order, text };
    this.sections.set(id, entry);
    return () => {
      if (this.sections.get(id) === entry) this.sections.delete(id);
    };
  }

  /** The latest value set in the nearest scope wins; disposing reveals the previous one. */
  setVariable(name: string, value: string): Disposer {
    if (typeof name !== 'string' || !VARIABLE_NAME.test(name)) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `prompt variable name ${JSON.stringify(name)} is invalid`,
      );
    }
    if (typeof value !== 'string') {
      throw new UserError('INVALID_ARGUMENT', `prompt variable ${name} must be a string`);
    }
    const entry = { value };
    const stack = this.variables.get(name) ?? [];
    stack.push(entry);
    this.variables.set(name, stack);
    return () => {
      const index = stack.indexOf(entry);
      if (index >= 0) stack.splice(index, 1);
      if (stack.length === 0 && this.variables.get(name) === stack) this.variables.delete(name);
    };
  }

  /** Applies to this scope and its children, after the whole `prompt/assemble` waterfall. */
  protect(pin: ProtectionPin): Disposer {
    const { section, tool, owner } = pin ?? {};
    if (!isName(owner)) {
      throw new UserError('INVALID_ARGUMENT', 'protect() needs a non-empty owner');
    }
    const given = [section, tool].filter((value) => value !== undefined);
    if (given.length === 0 || !given.every(isName)) {
      throw new UserError(
        'INVALID_ARGUMENT',
        `protect() by ${owner} must name a section id and/or a tool name (non-empty strings)`,
      );
    }
    const entry = { ...pin };
    this.pins.push(entry);
    return () => {
      const index = this.pins.indexOf(entry);
      if (index >= 0) this.pins.splice(index, 1);
    };
  }

  async assemble(tools: readonly ModelToolSpec[]): Promise<AssembledPrompt> {
    const variables = new RenderVariables(this.resolveVariables());
    const canonicalSections = [...this.collectSections().values()]
      .map((definition) => renderSection(definition, variables))
      .sort((first, second) => first.order - second.order);
    const canonicalTools = tools.map(canonicalTool);
    // Without a listener nothing can edit the draft: it is the canonical one, not a copy.
    const edited = this.context.hasListeners(promptAssemble)
      ? checkDraft(
          await this.context.run(
            promptAssemble,
            {
              sections: canonicalSections.map((section) => ({ ...section })),
              tools: canonicalTools.map(copyTool),
            },
            (input) => input,
          ),
        )
      : { sections: canonicalSections, tools: canonicalTools };
    const pins = this.activePins();
    const sections = restoreProtected({
      edited: edited.sections,
      canonical: canonicalSections,
      protectedKeys: new Set(pins.flatMap((pin) => (pin.section ? [pin.section] : []))),
      keyOf: (section) => section.id,
      copy: (section) => ({ ...section }),
    });
    const finalTools = restoreProtected({
      edited: edited.tools,
      canonical: canonicalTools,
      protectedKeys: new Set(pins.flatMap((pin) => (pin.tool ? [pin.tool] : []))),
      keyOf: (tool) => tool.name,
      copy: copyTool,
    });
    const system = sections
      .map((section) => section.text)
      .filter((text) => text !== '')
      .join('\n\n');
    return { system, sections, tools: finalTools };
  }

  private collectSections(): Map<string, SectionDefinition> {
    const collected = this.parent ? this.parent.collectSections() : new Map();
    for (const [id, definition] of this.sections) collected.set(id, definition);
    return collected;
  }

  private resolveVariables(): Map<string, string> {
    const resolved = this.parent ? this.parent.resolveVariables() : new Map<string, string>();
    for (const [name, stack] of this.variables) {
      const latest = stack.at(-1);
      if (latest) resolved.set(name, latest.value);
    }
    return resolved;
  }

  private activePins(): ProtectionPin[] {
    return this.parent ? [...this.parent.activePins(), ...this.pins] : [...this.pins];
  }
}

/** The variables of one assembly; the frozen object function sections get is made once. */
class RenderVariables {
  private frozen: PromptVariables | undefined;

  constructor(readonly values: Map<string, string>) {}

  get object(): PromptVariables {
    this.frozen ??= Object.freeze(Object.fromEntries(this.values));
    return this.frozen;
  }
}

function renderSection(definition: SectionDefinition, variables: RenderVariables): PromptSection {
  const { id, order, text } = definition;
  let raw: unknown = text;
  if (typeof text === 'function') {
    try {
      raw = text(variables.object);
    } catch (error) {
      throw new LoomError(
        'INVALID_ARGUMENT',
        `prompt section ${id} failed to render: ${errorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
  }
  if (typeof raw !== 'string') {
    throw new LoomError(
      'INVALID_ARGUMENT',
      `prompt section ${id} rendered a ${typeof raw}, not a string`,
    );
  }
  if (!raw.includes('{{')) return { id, order, text: raw };
  const interpolated = raw.replace(
    PLACEHOLDER,
    (placeholder, name: string) => variables.values.get(name) ?? placeholder,
  );
  return { id, order, text: interpolated };
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** One frozen deep copy per registered parameters object, shared by every assembly that sends it. */
const sharedParameters = new WeakMap<object, ModelToolSpec['parameters']>();
/** Per registered parameters object and tool name, the frozen tool last assembled from them. */
const sharedTools = new WeakMap<object, Map<string, ModelToolSpec>>();
/** The frozen tools themselves: content that never changes, so they may key a cache. */
const sharedToolSet = new WeakSet<object>();

/**
 * Whether `value` is a tool that assemblies share: a frozen `{ name, description, parameters }`
 * (in that order) with string name and description and a frozen parameters copy.
 */
export function isSharedTool(value: object): boolean {
  return sharedToolSet.has(value);
}

function frozenCopy(parameters: ModelToolSpec['parameters']): ModelToolSpec['parameters'] {
  let shared = sharedParameters.get(parameters);
  if (shared === undefined) {
    shared = deepFreeze(structuredClone(parameters));
    sharedParameters.set(parameters, shared);
  }
  return shared;
}

/**
 * The tool as assembled: its parameters are a frozen copy made once per registered schema, so a
 * later change to the registered object never reaches a request already built, and nobody
 * downstream can change what another agent sends. The tool itself is frozen too and shared by
 * every assembly of the same schema, name and description (the agents of a workflow).
 */
function canonicalTool(tool: ModelToolSpec): ModelToolSpec {
  const { name, description, parameters } = tool;
  let byName = sharedTools.get(parameters);
  const shared = byName?.get(name);
  if (shared !== undefined && shared.description === description) return shared;
  const canonical = Object.freeze({ name, description, parameters: frozenCopy(parameters) });
  if (typeof name === 'string' && typeof description === 'string') {
    if (byName === undefined) {
      byName = new Map();
      sharedTools.set(parameters, byName);
    }
    byName.set(name, canonical);
    sharedToolSet.add(canonical);
  }
  return canonical;
}

function copyTool(tool: ModelToolSpec): ModelToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: structuredClone(tool.parameters),
  };
}

function checkDraft(draft: unknown): PromptDraft {
  const fail = (field: string): never => {
    throw new LoomError('INVALID_ARGUMENT', `prompt/assemble produced an invalid draft: ${field}`);
  };
  const { sections, tools } = (draft ?? {}) as Partial<PromptDraft>;
  if (!Array.isArray(sections)) fail('sections is not an array');
  if (!Array.isArray(tools)) fail('tools is not an array');
  (sections as unknown[]).forEach((section, index) => {
    const { id, order, text } = (section ?? {}) as Partial<PromptSection>;
    if (typeof id !== 'string') fail(`sections[${index}].id is not a string`);
    if (typeof order !== 'number') fail(`sections[${index}].order is not a number`);
    if (typeof text !== 'string') fail(`sections[${index}].text is not a string`);
  });
  (tools as unknown[]).forEach((tool, index) => {
    const { name, description, parameters } = (tool ?? {}) as Partial<ModelToolSpec>;
    if (typeof name !== 'string') fail(`tools[${index}].name is not a string`);
    if (typeof description !== 'string') fail(`tools[${index}].description is not a string`);
    if (typeof parameters !== 'object' || parameters === null)
      fail(`tools[${index}].parameters is not an object`);
  });
  return draft as PromptDraft;
}

interface Restoration<Entry> {
  edited: Entry[];
  canonical: Entry[];
  protectedKeys: ReadonlySet<string>;
  keyOf: (entry: Entry) => string;
  copy: (entry: Entry) => Entry;
}

/**
 * Each protected key ends up present exactly as often as canonically (once or not at all), with
 * its canonical content. A surviving entry keeps the place a listener gave it; a dropped one
 * returns before the first later canonical entry that survived, or at the end. Unprotected
 * entries keep the listeners' order.
 */
function restoreProtected<Entry>(restoration: Restoration<Entry>): Entry[] {
  const { edited, canonical, protectedKeys, keyOf, copy } = restoration;
  if (protectedKeys.size === 0) return edited;
  const canonicalByKey = new Map(canonical.map((entry) => [keyOf(entry), entry]));
  const survivors = new Set(edited.map(keyOf));
  const placed = new Set<string>();
  const output: Entry[] = [];
  for (const entry of edited) {
    const key = keyOf(entry);
    if (!protectedKeys.has(key)) {
      output.push(entry);
      continue;
    }
    const original = canonicalByKey.get(key);
    if (original === undefined || placed.has(key)) continue;
    placed.add(key);
    output.push(copy(original));
  }
  canonical.forEach((entry, index) => {
    const key = keyOf(entry);
    if (!protectedKeys.has(key) || placed.has(key)) return;
    const anchor = canonical.slice(index + 1).find((later) => survivors.has(keyOf(later)));
    const position =
      anchor === undefined ? -1 : output.findIndex((kept) => keyOf(kept) === keyOf(anchor));
    output.splice(position < 0 ? output.length : position, 0, copy(entry));
    placed.add(key);
  });
  return output;
}
