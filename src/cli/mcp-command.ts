/**
 * `loom mcp list`: starts every MCP server the workspace declares (config and `.mcp.json`), as a
 * session would, and prints each one's transport, where it was declared, its status and its
 * tools (`mcp__SERVER__TOOL`, and any left out with the reason), its resources (counted, the
 * first few by URI) and resource templates, and its prompts as the commands that run them
 * (`/mcp__SERVER__PROMPT`, optional arguments in brackets); then closes them all. Exit 0
 * whatever the servers did (the status says it); 1 when the config cannot be read.
 */
import { resolve } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { loomHome } from '../core/home.js';
import { DEFAULT_OUTPUT_LIMIT, type McpServerReport, mcpPromptCommand } from '../mcp/contract.js';
import { startServers } from '../mcp/install.js';
import { type ServerCatalog, serverCatalog } from '../mcp/server-catalog.js';
import { clientSettings, declaredServers } from '../mcp/server-list.js';
import { configuredSandbox } from '../sandbox/install.js';
import { configCredentials } from './config-credentials.js';
import { redactOutputWith } from './output-redaction.js';
import { plainTable } from './plain-table.js';

export interface McpListOptions {
  cwd?: string;
  json?: boolean;
}

function statusText(report: McpServerReport): string {
  const { status } = report;
  if (status.state === 'failed') {
    if (status.reason === 'needs-login') return `needs login (run loom mcp login ${report.name})`;
    return `${status.reason === 'timeout' ? 'timed out' : 'failed'}: ${status.message}`;
  }
  const offered = status.tools.filter((tool) => tool.agentName !== undefined).length;
  const version = status.serverVersion ? ` (${status.serverVersion})` : '';
  return `connected${version}, ${offered} tool${offered === 1 ? '' : 's'}`;
}

/** A server's report with what it offers besides tools (connected servers only). */
export type McpListReport = McpServerReport & ServerCatalog;

/** Resources and templates shown by name in the table; the rest are counted. */
const SHOWN_RESOURCES = 5;

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** The lines of one server's resources, templates and prompts. */
function catalogLines(report: McpListReport): string[] {
  const lines: string[] = [];
  if (report.resources) {
    const shown = report.resources.slice(0, SHOWN_RESOURCES).map((resource) => resource.uri);
    const more = report.resources.length - shown.length;
    lines.push(
      `  ${report.name}: ${plural(report.resources.length, 'resource')}${shown.length > 0 ? `: ${shown.join(', ')}` : ''}${more > 0 ? `, and ${more} more` : ''}\n`,
    );
  }
  for (const template of report.resourceTemplates ?? []) {
    lines.push(`  ${report.name}: template ${template.uriTemplate} (${template.name})\n`);
  }
  for (const problem of report.problems ?? []) {
    lines.push(`  ${report.name}: ${problem.method} failed: ${problem.message}\n`);
  }
  return lines;
}

function promptLines(report: McpListReport): string[] {
  return (report.prompts ?? []).map((prompt) => {
    const args = prompt.arguments.map((argument) =>
      argument.required ? argument.name : `[${argument.name}]`,
    );
    return `  /${mcpPromptCommand(report.name, prompt.name)}${args.length > 0 ? ` ${args.join(' ')}` : ''}\n`;
  });
}

export function formatServers(reports: readonly McpListReport[]): string {
  const table = plainTable(
    ['SERVER', 'TRANSPORT', 'FROM', 'STATUS'],
    reports.map((report) => [report.name, report.transport, report.source, statusText(report)]),
  );
  const tools = reports.flatMap((report) => {
    if (report.status.state !== 'connected') return [];
    return report.status.tools.map((tool) =>
      tool.agentName !== undefined
        ? `  ${tool.agentName}${tool.task ? ' (called as a task)' : ''}\n`
        : `  ${report.name}: ${tool.name} left out: ${tool.problem ?? 'unknown reason'}\n`,
    );
  });
  const resources = reports.flatMap(catalogLines);
  const prompts = reports.flatMap(promptLines);
  return [
    table,
    ...(tools.length > 0 ? [`tools:\n${tools.join('')}`] : []),
    ...(resources.length > 0 ? [`resources:\n${resources.join('')}`] : []),
    ...(prompts.length > 0 ? [`prompts:\n${prompts.join('')}`] : []),
  ].join('\n');
}

export async function mcpListCommand(options: McpListOptions): Promise<number> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const config = loadConfig(loomHome(), cwd);
  const servers = declaredServers(config, cwd);
  redactOutputWith(configCredentials(config, servers));
  if (servers.length === 0) {
    if (!options.json) {
      process.stderr.write(
        'no MCP servers: add them under mcp.servers in config.yaml or in .mcp.json\n',
      );
    }
    return 0;
  }
  // A server marked `sandbox: true` starts confined, as in a run.
  const sandbox = configuredSandbox(config.sandbox, loomHome());
  const results = await startServers(servers, {
    environment: process.env,
    outputLimit: config.mcp?.outputLimit ?? DEFAULT_OUTPUT_LIMIT,
    settings: clientSettings(config, cwd),
    sandboxLauncher: (folder, env) => sandbox.launch(folder, env),
  });
  const reports: McpListReport[] = await Promise.all(
    results.map(async (result) =>
      result.report.status.state === 'connected'
        ? { ...result.report, ...(await serverCatalog(result.connection)) }
        : result.report,
    ),
  );
  if (options.json) {
    for (const report of reports) process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    process.stdout.write(formatServers(reports));
  }
  await Promise.all(results.map((result) => result.connection.close()));
  await sandbox.dispose();
  return 0;
}
