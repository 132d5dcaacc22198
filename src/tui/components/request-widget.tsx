/**
 * The widget for the pending request: an approval (yes once, yes always for this session, no),
 * questions (choose an option by its number or with the arrows and Enter), or a plan review
 * (approve, or keep planning). It has the keyboard while shown and answers the request once.
 */
import { Box, Text } from 'ink';
import { useState } from 'react';
import type { PendingRequest } from '../contract.js';
import { useInput } from '../use-input.js';
import { Markdown } from './markdown.js';
import { gist } from './tool-line.js';

export function RequestWidget({ request, width }: { request: PendingRequest; width: number }) {
  switch (request.kind) {
    case 'approval':
      return <Approval request={request} />;
    case 'questions':
      return <Questions request={request} />;
    case 'plan-review':
      return <PlanReview request={request} width={width} />;
  }
}

function Approval({ request }: { request: Extract<PendingRequest, { kind: 'approval' }> }) {
  useInput((input) => {
    if (input === 'y' || input === '1') request.resolve({ decision: 'once' });
    else if (input === 'a' || input === '2') request.resolve({ decision: 'always' });
    else if (input === 'n' || input === '3') request.resolve({ decision: 'no' });
  });
  return (
    <Box borderStyle="round" borderColor="yellow" flexDirection="column" paddingX={1}>
      <Text bold>{`Allow ${request.tool}?`}</Text>
      <Text dimColor>{gist(request.arguments, 200)}</Text>
      <Text dimColor>{request.reason}</Text>
      <Text>1 (y) yes · 2 (a) yes, always this session · 3 (n) no</Text>
    </Box>
  );
}

function Questions({ request }: { request: Extract<PendingRequest, { kind: 'questions' }> }) {
  const [index, setIndex] = useState(0);
  const [cursor, setCursor] = useState(0);
  const [answers, setAnswers] = useState<Array<{ question: string; labels: string[] }>>([]);
  const question = request.questions[index];
  useInput((input, key) => {
    if (!question) return;
    const count = question.options.length;
    let chosen: number | undefined;
    if (key.upArrow) setCursor((cursor + count - 1) % count);
    else if (key.downArrow) setCursor((cursor + 1) % count);
    else if (key.return) chosen = cursor;
    else if (/^[1-9]$/.test(input) && Number(input) <= count) chosen = Number(input) - 1;
    if (chosen === undefined) return;
    const label = question.options[chosen]?.label ?? '';
    const next = [...answers, { question: question.question, labels: [label] }];
    if (index + 1 < request.questions.length) {
      setAnswers(next);
      setIndex(index + 1);
      setCursor(0);
    } else {
      request.resolve(next);
    }
  });
  if (!question) return null;
  return (
    <Box borderStyle="round" borderColor="cyan" flexDirection="column" paddingX={1}>
      <Text bold>{question.question}</Text>
      {question.options.map((option, position) => (
        <Text key={option.label} color={position === cursor ? 'cyan' : undefined}>
          {`${position === cursor ? '›' : ' '} ${position + 1}. ${option.label}`}
          {option.description ? <Text dimColor>{` — ${option.description}`}</Text> : null}
        </Text>
      ))}
    </Box>
  );
}

function PlanReview({
  request,
  width,
}: {
  request: Extract<PendingRequest, { kind: 'plan-review' }>;
  width: number;
}) {
  useInput((input) => {
    if (input === 'a' || input === '1') request.resolve({ approved: true });
    else if (input === 'k' || input === '2') request.resolve({ approved: false });
  });
  return (
    <Box borderStyle="round" borderColor="magenta" flexDirection="column" paddingX={1}>
      <Text bold>Plan ready for review</Text>
      <Markdown text={request.plan} width={width - 4} />
      <Text>1 (a) approve · 2 (k) keep planning</Text>
    </Box>
  );
}
