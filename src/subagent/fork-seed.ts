/**
 * A fork's seed: the parent's balanced prefix of completed turns, up to and including its last
 * `turn/end`. A turn still in progress (the one that is forking, say) is never copied, because
 * it cannot be replayed as a valid history.
 */
import type { SessionEvent } from '../core/session-events.js';

export function completedTurnPrefix(events: readonly SessionEvent[]): SessionEvent[] {
  let end = -1;
  let open = 0;
  for (let index = 0; index < events.length; index++) {
    const type = events[index]?.type;
    if (type === 'turn/start') open += 1;
    if (type === 'turn/end') {
      open -= 1;
      if (open === 0) end = index;
    }
  }
  return events.slice(0, end + 1).filter((event) => event.type !== 'subagent/descriptor');
}
