// Issue rules (pure: no I/O, no Node built-ins). An issue is a case the service desk works on: a fine,
// an accident, a damaged vehicle, a missing part…, linked to the booking, rental, vehicle, customer,
// business account, cost center, deposit, damages and invoices it concerns. See docs/issues.md.

/** The spec's issue states. */
export const issueStates = ['CREATED', 'WAITING', 'IN_REPAIR', 'CLOSED'] as const;
export type IssueState = (typeof issueStates)[number];

/** States of an issue still being worked on (every state but CLOSED). */
export const openIssueStates: readonly IssueState[] = ['CREATED', 'WAITING', 'IN_REPAIR'];

/**
 * The spec's issue categories ("fines, accidents, missing parts, service/inspection, damaged vehicle,
 * communication, parking, purchases, tolls, insurance, delivery, corrections"), named as an enum.
 */
export const issueCategories = [
  'FINE',
  'ACCIDENT',
  'MISSING_PARTS',
  'SERVICE_INSPECTION',
  'DAMAGED_VEHICLE',
  'COMMUNICATION',
  'PARKING',
  'PURCHASE',
  'TOLL',
  'INSURANCE',
  'DELIVERY',
  'CORRECTION',
] as const;
export type IssueCategory = (typeof issueCategories)[number];

/**
 * The allowed state moves (the spec shows none): a new issue waits (for the customer, an authority, a
 * part), goes to repair or is closed at once; waiting and repair alternate until it is closed; a closed
 * issue may be reopened, and starts again at CREATED.
 */
export const issueTransitions: Readonly<Record<IssueState, readonly IssueState[]>> = {
  CREATED: ['WAITING', 'IN_REPAIR', 'CLOSED'],
  WAITING: ['IN_REPAIR', 'CLOSED'],
  IN_REPAIR: ['WAITING', 'CLOSED'],
  CLOSED: ['CREATED'],
};

/** Whether an issue in this state is still being worked on. */
export const isOpenIssue = (state: IssueState): boolean => openIssueStates.includes(state);

/** Why an issue may not move from `from` to `to` (F100), or undefined when it may (staying is no move). */
export function issueTransitionRefusal(from: IssueState, to: IssueState): string | undefined {
  if (from === to) return undefined;
  return issueTransitions[from].includes(to)
    ? undefined
    : `a ${from} issue cannot become ${to} (allowed: ${issueTransitions[from].join(', ') || 'none'})`;
}

/** Whether an issue's fields and links may change: not once it is CLOSED (reopen it first). */
export const issueEditable = (state: IssueState): boolean => isOpenIssue(state);
