/**
 * One agent's transcript inside a view (a workflow agent, a child): the latest blocks of its
 * session, following it live while it runs; Up and Down scroll back and forth by a block. Reads
 * the session through `openAgentTranscript`; it never writes it.
 */
import { Box, Text, useInput } from 'ink';
import { useEffect, useState } from 'react';
import type { AgentRuntime } from '../../core/runtime.js';
import { type AgentTranscript, openAgentTranscript } from '../agent-transcript.js';
import { TranscriptItemView } from './transcript-item.js';

/** Redraws of a streaming agent are coalesced to one a frame. */
const FRAME_MS = 16;

export interface AgentTranscriptPaneProps {
  runtime: AgentRuntime;
  sessionId: string;
  title: string;
  width: number;
  /** Blocks shown at once. */
  maxItems: number;
  /** False while another widget (an approval) has the keyboard; default true. */
  keysActive?: boolean;
}

export function AgentTranscriptPane({
  runtime,
  sessionId,
  title,
  width,
  maxItems,
  keysActive = true,
}: AgentTranscriptPaneProps) {
  const [transcript, setTranscript] = useState<AgentTranscript | undefined>(undefined);
  const [, setVersion] = useState(0);
  const [back, setBack] = useState(0);
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    const opened = openAgentTranscript(runtime, sessionId, () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        setVersion((version) => version + 1);
      }, FRAME_MS);
    });
    setTranscript(opened);
    return () => {
      if (timer) clearTimeout(timer);
      opened.dispose();
    };
  }, [runtime, sessionId]);
  const items = transcript?.items() ?? [];
  const last = Math.max(0, items.length - back);
  const first = Math.max(0, last - maxItems);
  useInput(
    (_input, key) => {
      if (key.upArrow) setBack((value) => Math.min(value + 1, Math.max(0, items.length - 1)));
      if (key.downArrow) setBack((value) => Math.max(0, value - 1));
    },
    { isActive: keysActive },
  );
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate-end">
        {title}
        <Text dimColor>{` · session ${sessionId} · ↑↓ scroll · esc back`}</Text>
      </Text>
      {transcript?.problem ? <Text color="red">{transcript.problem}</Text> : null}
      {first > 0 ? <Text dimColor>{`↑ ${first} earlier blocks`}</Text> : null}
      {items.slice(first, last).map((item) => (
        <TranscriptItemView key={item.id} item={item} width={width} />
      ))}
      {last < items.length ? <Text dimColor>{`↓ ${items.length - last} later blocks`}</Text> : null}
      {transcript && !transcript.problem && items.length === 0 ? (
        <Text dimColor>Nothing in this session yet.</Text>
      ) : null}
    </Box>
  );
}
