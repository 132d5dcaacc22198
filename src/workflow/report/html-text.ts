/**
 * Text for the run report: HTML escaping and the short forms of durations, times, sizes and
 * tokens (the token wording is llm/usage-text.ts's, shared with `/cost`). Everything that comes from a run (labels, logs, values, reasons) reaches the page only
 * through `escapeHtml`; nothing here builds markup from data any other way.
 */
import { cacheText, formatTokens } from '../../llm/usage-text.js';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Safe in element text and in a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

/** `850 ms`, `12.3 s`, `4m 05s`, `1h 02m`. */
export function formatDuration(milliseconds: number): string {
  const ms = Math.max(0, Math.round(milliseconds));
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 3600)
    return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
  const minutes = Math.floor(seconds / 60);
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** `2026-12-01 10:30:05 UTC`. */
export function formatTime(time: number): string {
  if (typeof time !== 'number' || !Number.isFinite(time) || Math.abs(time) > 8.64e15)
    return 'unknown';
  return `${new Date(time).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

/** `512 B`, `3.4 KB`, `1.2 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** `1.2k in / 340 out`. */
export function formatUsage(usage: { input: number; output: number }): string {
  return `${formatTokens(usage.input)} in / ${formatTokens(usage.output)} out`;
}

export { cacheText, formatTokens };
