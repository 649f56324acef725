// External verification providers (driving licence, ID document, custom external checks) behind one
// port. The default adapter decides by tenant configuration (setting `customers.verification`), so a
// tenant without a contracted provider still gets deterministic, documented outcomes.
import type { VerificationKind } from '../domain/customer.js';

export type ProviderOutcome = 'VERIFIED' | 'REJECTED' | 'REVIEW';

/** What a provider sees of an attempt. */
export interface VerificationRequest {
  kind: Exclude<VerificationKind, 'MANUAL'>;
  customerId: number;
  media: ReadonlyArray<{ label: string; contentType: string; data: Buffer }>;
}

/** Port of an external verification provider. */
export interface VerificationProvider {
  readonly name: string;
  verify(request: VerificationRequest): Promise<{ outcome: ProviderOutcome; reason?: string }>;
}

export const VERIFICATION_SETTING_KEY = 'customers.verification';

/**
 * Default adapter: the outcome per kind comes from the tenant setting (`{"LICENSE": "VERIFIED", ...}`);
 * unconfigured kinds go to operator review.
 */
export class ConfiguredVerificationProvider implements VerificationProvider {
  readonly name = 'configured';

  constructor(private readonly configuration: Record<string, unknown>) {}

  async verify(request: VerificationRequest): Promise<{ outcome: ProviderOutcome; reason?: string }> {
    const configured = this.configuration[request.kind];
    if (configured === 'VERIFIED' || configured === 'REJECTED')
      return { outcome: configured, reason: `decided by tenant configuration (${VERIFICATION_SETTING_KEY})` };
    return { outcome: 'REVIEW' };
  }
}
