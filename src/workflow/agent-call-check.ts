/**
 * The start-time check of a script's `agent()` calls: every call whose options are an object
 * literal has each option name and each literally written value checked (the rules of
 * `agent-options.ts`, an agent type against the agent-type service when there is one, a schema
 * by the same check as when the call runs, `agent-schema.ts`), so a misspelled option fails before the first agent starts and spends
 * anything. It reads the parsed script only: nothing is evaluated, and a value that is not
 * written literally (a variable, a call) is left to the check when the call runs.
 */
import type { AgentTypes } from '../project/agent-types-contract.js';
import { isAgentOption, optionValueProblem, unknownOptionMessage } from './agent-options.js';
import { agentSchemaRefusal } from './agent-schema.js';
import { WorkflowError, type WorkflowErrorCode } from './contract.js';
import { acornParser, positionAt, scriptOptions, sourceExcerpt } from './script-parse.js';

export interface AgentCallCheckOptions {
  /** The agent types a script may name; absent: an `agentType` is checked when the call runs. */
  agentTypes?: AgentTypes;
}

/** What the literally written calls ask for, for checks of the run's surroundings. */
export interface AgentCallSummary {
  /** Some call writes `isolation: 'worktree'`. */
  worktree: boolean;
  /** Some call names an agent type as a literal. */
  agentType: boolean;
}

interface Problem {
  code: WorkflowErrorCode;
  message: string;
  offset: number;
}

/** The parts of an ESTree node this check reads. */
interface SyntaxNode {
  type: string;
  start: number;
  [field: string]: unknown;
}

/** Problems listed in one error at most; the rest are counted. */
const MAXIMUM_LISTED = 5;

/** What a node's value is when it is written literally; `known: false` for anything else. */
type Literal = { known: true; value: unknown } | { known: false };

const notLiteral: Literal = { known: false };

/**
 * Throws the first problem's code (`UNSUPPORTED_OPTION` for an unknown option, `INVALID_ARGUMENT`
 * for a bad value) with every problem found, each at its line and column. A body that does not
 * parse is `checkScriptBody`'s to report: it passes here.
 */
export function checkAgentCalls(
  script: string,
  options: AgentCallCheckOptions = {},
): AgentCallSummary {
  const summary: AgentCallSummary = { worktree: false, agentType: false };
  let program: unknown;
  try {
    program = acornParser().parse(script, scriptOptions);
  } catch {
    return summary;
  }
  const problems: Problem[] = [];
  visit(program, (node) => {
    const literal = agentOptionsOf(node);
    if (literal) checkOptions(literal, problems, options, summary);
  });
  const first = problems[0];
  if (!first) return summary;
  const shown = problems.slice(0, MAXIMUM_LISTED).map((problem) => describe(script, problem));
  const more = problems.length - shown.length;
  throw new WorkflowError(
    first.code,
    shown.join('\n') + (more > 0 ? `\n(and ${more} more problem${more === 1 ? '' : 's'})` : ''),
  );
}

/** Every node of the tree, depth first, in source order. */
function visit(node: unknown, onNode: (node: SyntaxNode) => void): void {
  if (typeof node !== 'object' || node === null) return;
  if (Array.isArray(node)) {
    for (const child of node) visit(child, onNode);
    return;
  }
  const record = node as Partial<SyntaxNode>;
  if (typeof record.type === 'string' && typeof record.start === 'number') {
    onNode(record as SyntaxNode);
  }
  for (const [key, child] of Object.entries(node)) {
    if (key === 'loc' || key === 'regex') continue;
    visit(child, onNode);
  }
}

/** The object literal given as a call's options, when `node` is `agent(prompt, { … })`. */
function agentOptionsOf(node: SyntaxNode): SyntaxNode | undefined {
  if (node.type !== 'CallExpression') return undefined;
  const callee = node.callee as SyntaxNode;
  if (callee.type !== 'Identifier' || callee.name !== 'agent') return undefined;
  const options = (node.arguments as SyntaxNode[])[1];
  return options?.type === 'ObjectExpression' ? options : undefined;
}

function checkOptions(
  literal: SyntaxNode,
  problems: Problem[],
  options: AgentCallCheckOptions,
  summary: AgentCallSummary,
): void {
  for (const property of literal.properties as SyntaxNode[]) {
    const key = propertyName(property);
    // A spread or a computed key names options only when the call runs.
    if (key === undefined) continue;
    if (!isAgentOption(key)) {
      problems.push({
        code: 'UNSUPPORTED_OPTION',
        message: unknownOptionMessage(key),
        offset: property.start,
      });
      continue;
    }
    const value = literalOf(property.value as SyntaxNode);
    if (!value.known) continue;
    if (key === 'isolation' && value.value === 'worktree') summary.worktree = true;
    if (key === 'agentType') summary.agentType = true;
    const problem =
      key === 'schema' ? agentSchemaRefusal(value.value) : optionValueProblem(key, value.value);
    const typeProblem =
      problem === undefined && key === 'agentType'
        ? unknownTypeProblem(value.value as string, options.agentTypes)
        : undefined;
    const message = problem ?? typeProblem;
    if (message !== undefined) {
      problems.push({
        code: key === 'schema' ? 'UNSUPPORTED_SCHEMA' : 'INVALID_ARGUMENT',
        message,
        offset: (property.value as SyntaxNode).start,
      });
    }
  }
}

/** `agentType` names a type the service does not know: the known ones are named. */
export function unknownTypeProblem(
  name: string,
  agentTypes: AgentTypes | undefined,
): string | undefined {
  if (!agentTypes || agentTypes.find(name) !== undefined) return undefined;
  const known = agentTypes.list().map((type) => type.name);
  return `agent() option agentType names no agent type ${JSON.stringify(name)} (known: ${known.length > 0 ? known.join(', ') : 'none'})`;
}

/** A property's name as written (`label:` or `'label':`); undefined for a spread or `[key]:`. */
function propertyName(property: SyntaxNode): string | undefined {
  if (property.type !== 'Property' || property.computed) return undefined;
  const key = property.key as SyntaxNode;
  if (key.type === 'Identifier') return key.name as string;
  if (key.type === 'Literal' && typeof key.value === 'string') return key.value;
  return undefined;
}

/** The value of a JSON-like literal (strings, numbers, booleans, null, arrays, objects). */
function literalOf(node: SyntaxNode): Literal {
  switch (node.type) {
    case 'Literal':
      return 'regex' in node || 'bigint' in node ? notLiteral : { known: true, value: node.value };
    case 'TemplateLiteral': {
      const quasis = node.quasis as Array<{ value: { cooked: string | null } }>;
      const [only] = quasis;
      if ((node.expressions as unknown[]).length > 0 || !only || only.value.cooked === null) {
        return notLiteral;
      }
      return { known: true, value: only.value.cooked };
    }
    case 'UnaryExpression': {
      const argument = literalOf(node.argument as SyntaxNode);
      if (node.operator !== '-' || !argument.known || typeof argument.value !== 'number') {
        return notLiteral;
      }
      return { known: true, value: -argument.value };
    }
    case 'ArrayExpression':
      return arrayOf(node.elements as Array<SyntaxNode | null>);
    case 'ObjectExpression':
      return objectOf(node.properties as SyntaxNode[]);
    default:
      return notLiteral;
  }
}

function arrayOf(elements: Array<SyntaxNode | null>): Literal {
  const value: unknown[] = [];
  for (const element of elements) {
    if (element === null) return notLiteral;
    const item = literalOf(element);
    if (!item.known) return notLiteral;
    value.push(item.value);
  }
  return { known: true, value };
}

function objectOf(properties: SyntaxNode[]): Literal {
  const value: Record<string, unknown> = {};
  for (const property of properties) {
    const key = propertyName(property);
    // `__proto__:` in a literal sets the prototype; methods and shorthands are not data.
    if (key === undefined || key === '__proto__' || property.kind !== 'init') return notLiteral;
    if (property.method || property.shorthand) return notLiteral;
    const item = literalOf(property.value as SyntaxNode);
    if (!item.known) return notLiteral;
    Object.defineProperty(value, key, {
      value: item.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { known: true, value };
}

function describe(script: string, problem: Problem): string {
  return `${problem.message} (at ${positionAt(script, problem.offset)})\n${sourceExcerpt(script, problem.offset)}`;
}
