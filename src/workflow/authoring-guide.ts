/**
 * The model-facing text of the `workflow` tool: its description is the authoring guide for
 * scripts, and the usage policy is its own prompt section. Text only; no behaviour here.
 */

export const WORKFLOW_TOOL_DESCRIPTION = `Run a JavaScript orchestration script that fans work out to many subagents. The script, not this conversation, holds the loop, the branching and the intermediate results; only its return value comes back to you.

Parameters:
- meta: {name, description, whenToUse?, phases?: [{title, detail?, model?}], budgetTokens?} (data; unknown keys are rejected).
- script: a plain JavaScript body with top-level await that ends in \`return <JSON value>\`. No imports, no \`export const meta\` line (meta goes in the parameter).
- args: a JSON object the script reads as \`args\`.

The script sees exactly these globals:
- agent(prompt, {label?, phase?, schema?, model?, timeoutMs?, effort?, isolation?, agentType?}) -> Promise<string | value | null>. Starts a fresh subagent with the same tools except workflow; the prompt is its whole task (it has not seen this conversation). Resolves to its final text, or, with a JSON \`schema\`, to a value matching it. Resolves null when that subagent fails, so use \`.filter(Boolean)\`.
- agent option schema: JSON Schema as tools' parameters take it (draft 2020-12, or draft-07 with its $schema): type lists such as ['string', 'null'], anyOf/oneOf/allOf, enum and const of any value, $defs with $ref '#/$defs/NAME', bounds, pattern, format (a hint, not checked). A keyword that is not JSON Schema (nullable, a typo) is refused by name.
- agent option timeoutMs: a whole number of milliseconds; a subagent still running that long after it started is cancelled and resolves null (its failure reason is timeout). A subagent whose model sends no output for the run's stall limit (workflow.stallMs, default 5 minutes; time spent in its tools does not count) is cancelled the same way (reason stalled).
- agent option effort: 'low' | 'medium' | 'high' | 'max', how hard the subagent's model thinks (its route's reasoning control; a model without one runs without it). isolation: 'worktree' gives the subagent its own git worktree of the workspace (uncommitted changes included); what it changes is committed on a branch loom/RUN_ID/AGENT, which the run's events name, and the workspace itself is untouched. agentType: a named agent type (its prompt, tools, model and effort, unless the call names its own).
- parallel([() => promise, ...]) -> Promise<array>: runs the thunks concurrently and waits for all; an item that throws becomes null.
- pipeline(items, stage1, stage2, ...) -> Promise<array>: each item flows through the stages on its own (no barrier between stages); each stage is called (previous, item, index), previous being the item for the first stage. A stage that throws nulls its item and skips the item's later stages.
- phase(title): marks progress (use the meta phase titles). log(message): a progress line for the user.
- args: the args parameter.
- workflow(nameOrPath, args?) -> Promise<value>: runs a saved workflow (by name) or a workflow file with an \`export const meta\` header (a path ending in .js, relative to the script's file, else the working folder) one level deep and resolves to its return value; it shares this run's agent limits, concurrency and cancellation. A workflow() call inside that nested workflow is a fatal NESTING_LIMIT.
- budget: {total, spent(), remaining()}: the run's token ceiling (budget_tokens or meta.budgetTokens; total null and remaining() Infinity without one) and the input + output tokens its agents have used so far. Once spent reaches total the run ends with BUDGET_EXHAUSTED and no more agents start, so check budget.remaining() before starting more work if you want partial results.
Mistakes are fatal and end the script with an error naming them: unknown agent options, bad arguments, an unsupported schema, too many agents or items. Values you return must be JSON (no functions, Map, Date, undefined inside arrays).

Example:
const files = (await agent('List the TypeScript files under src/ that handle payments.', {label: 'list', schema: {type: 'object', properties: {files: {type: 'array', items: {type: 'string'}}}, required: ['files']}})).files;
phase('audit');
const findings = await pipeline(files,
  (file) => agent(\`Audit \${file} for unchecked errors. Report each finding with its line.\`, {label: \`audit \${file}\`}),
  (report, file) => report && agent(\`Verify this finding in \${file} and answer CONFIRMED or REJECTED with a reason:\\n\${report}\`, {label: \`verify \${file}\`}));
return files.map((file, index) => ({file, verdict: findings[index]}));`;

/** Saved workflows the tool's description lists; the rest are counted. */
export const MAXIMUM_LISTED_SAVED_WORKFLOWS = 50;
const MAXIMUM_LISTED_DESCRIPTION = 300;

/** The tool's description: the authoring guide, then the saved workflows the model may call by name. */
export function workflowToolDescription(
  saved: ReadonlyArray<{ name: string; description: string }>,
): string {
  if (saved.length === 0) return WORKFLOW_TOOL_DESCRIPTION;
  const lines = saved.slice(0, MAXIMUM_LISTED_SAVED_WORKFLOWS).map(({ name, description }) => {
    const text = description.replace(/\s+/g, ' ').trim();
    const cut =
      text.length > MAXIMUM_LISTED_DESCRIPTION
        ? `${text.slice(0, MAXIMUM_LISTED_DESCRIPTION)}…`
        : text;
    return `- ${name}: ${cut}`;
  });
  if (saved.length > MAXIMUM_LISTED_SAVED_WORKFLOWS) {
    lines.push(
      `- … and ${saved.length - MAXIMUM_LISTED_SAVED_WORKFLOWS} more (\`loom workflow list\` shows them all)`,
    );
  }
  return `${WORKFLOW_TOOL_DESCRIPTION}

Saved workflows (call with {name, args} instead of meta and script; the file gives both):
${lines.join('\n')}`;
}

export const WORKFLOW_POLICY_EXPLICIT = `# Workflows
Use the workflow tool only when the user explicitly asks for a workflow, a script, or for fanning work out to many agents. For a single delegated task use the subagent tool; for ordinary work use your own tools.`;

export const WORKFLOW_POLICY_ALWAYS = `# Workflows
Use the workflow tool when a task splits into many independent pieces (an audit over many files, a migration, research from several angles, verification of many findings): write a script that fans the pieces out to subagents and returns a compact result.`;

/** The system prompt text a workflow child gets, so its answer fits what the script expects. */
export function workflowChildInstructions(hasSchema: boolean): string {
  return hasSchema
    ? '# Your answer\nYou are one step of a workflow script. Deliver your final answer by calling the structured_output tool exactly once with arguments matching its schema; that value is returned to the script. Do not answer in plain text.'
    : '# Your answer\nYou are one step of a workflow script. Your final message is returned verbatim to the script as a string, so make it the complete answer: no greetings, no questions back.';
}
