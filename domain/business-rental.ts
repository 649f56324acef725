// Pure rules of a business rental's context (business account, cost center, reason): no I/O, importable
// from workflows. The API looks the rows up and asks these rules; see docs/rentals.md.

/** What the rules need to know about the business account a rental names, as the caller sees it. */
export interface BusinessContextFacts {
  /** Whether the customer is an ACTIVE member of the business account named (false when it names nothing). */
  customerIsActiveMember: boolean;
  /** Whether the cost center named (if any) belongs to that business account. */
  costCenterBelongsToGroup: boolean;
  /**
   * The account keeps a driving log (`requireDrivingLog`): each business trip's purpose is recorded, so
   * the rental's `reason` is mandatory.
   */
  reasonRequired: boolean;
}

/** A business rental's context as the client sent it. */
export interface BusinessContextRequest {
  userGroupId?: number;
  costCenterId?: number;
  reason?: string;
}

/**
 * Why a business context is refused, or undefined when it is acceptable: R190 the account is not the
 * customer's (or does not exist), R191 the cost center is not the account's (or is given without an
 * account), R192 the account requires a reason. A request without any business field is a private rental.
 */
export function businessContextRefusal(
  request: BusinessContextRequest,
  facts: BusinessContextFacts | undefined,
): 'R190' | 'R191' | 'R192' | undefined {
  if (request.userGroupId === undefined) return request.costCenterId === undefined ? undefined : 'R191';
  if (!facts?.customerIsActiveMember) return 'R190';
  if (request.costCenterId !== undefined && !facts.costCenterBelongsToGroup) return 'R191';
  if (facts.reasonRequired && !request.reason?.trim()) return 'R192';
  return undefined;
}
