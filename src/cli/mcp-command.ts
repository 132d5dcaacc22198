/**
 * `loom mcp list`: starts every MCP server the workspace declares (config and `.mcp.json`), as a
 * session would, and prints each one's transport, where it was declared, its status and its
 * tools (`mcp__SERVER__TOOL`, and any left out with the reason); then closes them all. Exit 0
 * whatever the servers did (the status says it); 1 when the config cannot be read.
 */
import { resolve } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { loomHome } from '../core/home.js';
import { DEFAULT_OUTPUT_LIMIT, type McpServerReport } from '../mcp/contract.js';
import { startServers } from '../mcp/install.js';
import { clientSettings, declaredServers } from '../mcp/server-list.js';
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

export function formatServers(reports: readonly McpServerReport[]): string {
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
  return tools.length > 0 ? `${table}\ntools:\n${tools.join('')}` : table;
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
  const results = await startServers(servers, {
    environment: process.env,
    outputLimit: config.mcp?.outputLimit ?? DEFAULT_OUTPUT_LIMIT,
    settings: clientSettings(config, cwd),
  });
  const reports = results.map((result) => result.report);
  if (options.json) {
    for (const report of reports) process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    process.stdout.write(formatServers(reports));
  }
  await Promise.all(results.map((result) => result.connection.close()));
  return 0;
}
