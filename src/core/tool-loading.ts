/**
 * Deferred tools: which of an agent's visible tools a request offers by name and one line (in the
 * description of `load_tools`) instead of their full schemas, and which it offers in full because
 * the agent loaded them (`tools/loaded` events). What a request offers is derived from the log
 * alone, so a resumed session keeps its loaded tools. Deferral changes how tools are shown, never
 * what a call may do: a deferred tool stays visible and callable, and permission stays with the
 * pipeline. A call to a deferred tool that was not loaded loads it (`autoLoadCalled`).
 */
import type { ModelToolCall } from '../llm/contract.js';
import { type Context, serviceKey } from './context.js';
import type { SessionEvent } from './session-events.js';
import type { SessionLog } from './session-log.js';
import type { ToolDefinition } from './tool-contract.js';

export const LOAD_TOOLS_TOOL = 'load_tools';
/** How many `numerous` tools (an MCP server's) an agent is offered in full by default. */
export const DEFAULT_NUMEROUS_IN_FULL = 20;

/** How tools are deferred; provided on a runtime's root scope (`toolLoadingKey`). */
export interface ToolLoadingSettings {
  /** Default true; false offers every tool in full (and no `load_tools`). */
  deferred?: boolean;
  /** Tools always offered in full, whatever their `deferral`. Default none. */
  alwaysLoad?: readonly string[];
  /** How many `numerous` tools an agent is offered in full before the rest are deferred; default 20. */
  numerousInFull?: number;
}

export const toolLoadingKey = serviceKey<ToolLoadingSettings>('tools/loading');

/** Longest line a deferred tool is listed with. */
const SUMMARY_LENGTH = 120;

/** The settings in force for an agent's scope. */
export function toolLoadingOf(context: Context): ToolLoadingSettings {
  return context.find(toolLoadingKey) ?? {};
}

/**
 * The tools of `visible` a request defers, in visible order: none when deferral is off or the
 * agent has no `load_tools` (a filter hid it), so every tool stays reachable.
 */
export function deferredTools(
  visible: readonly ToolDefinition[],
  settings: ToolLoadingSettings,
): ToolDefinition[] {
  if (settings.deferred === false) return [];
  if (!visible.some((tool) => tool.name === LOAD_TOOLS_TOOL)) return [];
  const inFull = new Set(settings.alwaysLoad ?? []);
  let numerousLeft = settings.numerousInFull ?? DEFAULT_NUMEROUS_IN_FULL;
  return visible.filter((tool) => {
    if (tool.deferral === undefined || tool.name === LOAD_TOOLS_TOOL) return false;
    if (tool.deferral === 'numerous' && numerousLeft > 0) {
      numerousLeft -= 1;
      return false;
    }
    return !inFull.has(tool.name);
  });
}

interface LoadedScan {
  scanned: number;
  names: string[];
}

/** Per event list (a log's memory only grows), the names loaded so far. */
const loadedScans = new WeakMap<readonly SessionEvent[], LoadedScan>();

/** Every name a `tools/loaded` event of `events` holds, in the order they were first loaded. */
export function loadedToolNames(events: readonly SessionEvent[]): readonly string[] {
  let scan = loadedScans.get(events);
  if (!scan || scan.scanned > events.length) {
    scan = { scanned: 0, names: [] };
    loadedScans.set(events, scan);
  }
  for (; scan.scanned < events.length; scan.scanned++) {
    const event = events[scan.scanned];
    if (event?.type !== 'tools/loaded') continue;
    for (const name of (event as SessionEvent<'tools/loaded'>).data.names) {
      if (!scan.names.includes(name)) scan.names.push(name);
    }
  }
  return scan.names;
}

/**
 * What a request of the agent offers, from its visible tools and its log: the tools in full (in
 * visible order), then `load_tools` listing every deferred tool, loaded or not (so loading never
 * changes the list), then the loaded deferred tools in the order they were loaded (so a load only
 * appends). Without deferred tools, the visible tools minus `load_tools`.
 */
export function offeredTools(
  context: Context,
  visible: readonly ToolDefinition[],
  events: readonly SessionEvent[],
): ToolDefinition[] {
  const deferred = deferredTools(visible, toolLoadingOf(context));
  if (deferred.length === 0) return visible.filter((tool) => tool.name !== LOAD_TOOLS_TOOL);
  const byName = new Map(deferred.map((tool) => [tool.name, tool]));
  const loaded = loadedToolNames(events).flatMap((name) => byName.get(name) ?? []);
  return [
    ...visible.filter((tool) => tool.name !== LOAD_TOOLS_TOOL && !byName.has(tool.name)),
    listingTool(deferred),
    ...loaded,
  ];
}

/**
 * Logs a `tools/loaded` event for each call of `calls` to a deferred tool not loaded yet, so the
 * next request carries its schema (the call itself runs as any other: fewest model steps).
 */
export function autoLoadCalled(
  context: Context,
  log: SessionLog,
  visible: readonly ToolDefinition[],
  calls: readonly ModelToolCall[],
  turnId: string,
): void {
  const deferred = deferredTools(visible, toolLoadingOf(context));
  if (deferred.length === 0) return;
  const loaded = new Set(loadedToolNames(log.events));
  for (const call of calls) {
    if (loaded.has(call.name) || !deferred.some((tool) => tool.name === call.name)) continue;
    loaded.add(call.name);
    log.append('tools/loaded', { turnId, callId: call.id, names: [call.name] });
  }
}

/** The one line a deferred tool is listed with. */
export function summaryOf(tool: Pick<ToolDefinition, 'description' | 'summary'>): string {
  const text = (tool.summary ?? tool.description).trim().split('\n')[0] ?? '';
  const end = text.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? text.slice(0, end + 1) : text;
  if (sentence.length <= SUMMARY_LENGTH) return sentence;
  const cut = sentence.slice(0, SUMMARY_LENGTH - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), SUMMARY_LENGTH / 2))}…`;
}

/** The text `load_tools` is described with, listing `deferred`. */
export function listingText(deferred: readonly ToolDefinition[]): string {
  const lines = deferred.map((tool) => `- ${tool.name}: ${summaryOf(tool)}`);
  return `${LOAD_TOOLS_LEAD}\n\n${lines.join('\n')}`;
}

const LOAD_TOOLS_LEAD =
  'Load these tools: their parameters are in your tools from the next step on. A listed tool called directly is loaded too.';

/** What `load_tools` takes. */
export const LOAD_TOOLS_PARAMETERS = {
  type: 'object',
  properties: {
    names: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      minItems: 1,
      description: 'Names from the list.',
    },
  },
  required: ['names'],
  additionalProperties: false,
} as const;

/** The listing `load_tools` of each distinct text, with a parameters object of its own. */
const listings = new Map<string, ToolDefinition>();
const LISTINGS_KEPT = 16;

/**
 * `load_tools` as a request shows it: described with its listing. Each distinct text keeps one
 * object with parameters of its own, so the prompt's shared frozen copy of one listing is never
 * replaced by another's (agents of different tool sets alternating in one process), and the
 * agents that defer the same tools share one. Shown only: calls run the agent's own `load_tools`.
 */
function listingTool(deferred: readonly ToolDefinition[]): ToolDefinition {
  const description = listingText(deferred);
  const known = listings.get(description);
  if (known !== undefined) return known;
  if (listings.size >= LISTINGS_KEPT) {
    const oldest = listings.keys().next().value;
    if (oldest !== undefined) listings.delete(oldest);
  }
  const listing: ToolDefinition = {
    name: LOAD_TOOLS_TOOL,
    description,
    parameters: structuredClone(LOAD_TOOLS_PARAMETERS) as ToolDefinition['parameters'],
    execute: () => ({ content: "load_tools runs through the agent's pipeline", isError: true }),
  };
  listings.set(description, listing);
  return listing;
}
