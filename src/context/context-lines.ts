/**
 * The one-line texts a person reads about the context: a warning as it fills, what a compaction
 * did, and a compaction that was skipped. Shared by the headless run (stderr) and the terminal.
 * Pure; never reads anything but the event.
 */
import type {
  ContextCompactEvent,
  ContextCompactSkippedEvent,
  ContextWarningEvent,
} from './contract.js';

/** A token count as people read it: `812`, `9.5k`, `62k`. */
export function tokens(count: number): string {
  if (count < 1000) return String(count);
  const thousands = count / 1000;
  return `${thousands < 10 ? thousands.toFixed(1).replace(/\.0$/, '') : Math.round(thousands)}k`;
}

/**
 * A whole number with thousands separators, `32,000`. Not `toLocaleString`: its first call loads
 * the ICU locale data, about 6 ms of a start that prints the unknown-model note.
 */
export function groupedNumber(count: number): string {
  return String(Math.trunc(count)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export function contextWarningLine(event: ContextWarningEvent): string {
  return `context ${Math.round(event.share * 100)}% full: older tool results will be pruned soon (recall brings any back)`;
}

export function contextCompactLine(event: ContextCompactEvent): string {
  const parts = [
    ...(event.pruned.length > 0 ? [`${plural(event.pruned.length, 'tool result')} pruned`] : []),
    ...(event.summary.length > 0 ? [summarizedText(event)] : []),
  ];
  const what = parts.length > 0 ? parts.join(', ') : 'nothing pruned';
  const why = event.trigger === 'overflow' ? ' after the provider said the context was full' : '';
  return `compacted${why}: ${what} (${tokens(event.before)} → ${tokens(event.after)} tokens)`;
}

function summarizedText(event: ContextCompactEvent): string {
  const span = event.summarized;
  if (!span) return 'earlier turns summarized';
  const steps = plural(span.steps, 'step');
  return span.turns > 1 ? `${span.turns} turns (${steps}) summarized` : `${steps} summarized`;
}

export function contextSkippedLine(event: ContextCompactSkippedEvent): string {
  const why = event.reason ?? 'it would not make the request smaller';
  return `compaction skipped: ${why} (${tokens(event.before)} → ${tokens(event.wouldBe)} tokens)`;
}
