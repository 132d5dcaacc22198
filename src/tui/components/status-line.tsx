/**
 * The running turn's status line, under the transcript and above the prompt: a spinner, the
 * elapsed time, tokens in and out so far, what happens now and the interrupt key, redrawn on the
 * shared ticker while the turn runs. Draws nothing while idle; never reads the runtime.
 */
import { Text } from 'ink';
import { activityLine, describeActivity, type TurnActivity } from '../activity-state.js';
import { useTick } from '../use-tick.js';

export interface StatusLineProps {
  activity: TurnActivity | undefined;
  /** The clock; default `Date.now`. */
  now?: () => number;
}

export function StatusLine({ activity, now = Date.now }: StatusLineProps) {
  const tick = useTick(activity !== undefined);
  if (!activity) return null;
  return (
    <Text color="cyan" wrap="truncate-end">
      {activityLine(describeActivity(activity, now()), tick)}
    </Text>
  );
}
