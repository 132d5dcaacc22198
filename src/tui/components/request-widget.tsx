/**
 * The widget for the pending request: an approval, questions, or a plan review, each drawn by its
 * own component. Whichever is shown has the keyboard and answers the request once.
 */
import type { PendingRequest } from '../contract.js';
import { Approval } from './approval.js';
import { PlanReview } from './plan-review.js';
import { QuestionForm } from './question-form.js';

export function RequestWidget({ request, width }: { request: PendingRequest; width: number }) {
  switch (request.kind) {
    case 'approval':
      return <Approval request={request} />;
    case 'questions':
      return <QuestionForm request={request} />;
    case 'plan-review':
      return <PlanReview request={request} width={width} />;
  }
}
