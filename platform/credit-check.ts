// Credit checks of customers behind one port. The default adapter answers from tenant configuration
// (setting `customers.creditCheck`), so a tenant without a contracted credit agency still gets
// deterministic, documented outcomes; a real agency is another implementation of the port.

export type CreditStatus = 'GOOD' | 'MEDIUM' | 'BAD' | 'UNKNOWN';

/** What a credit agency sees of a customer. */
export interface CreditCheckRequest {
  customerId: number;
  firstName: string;
  lastName: string;
  birthdate: string | null;
  country: string | null;
}

export interface CreditCheckResult {
  status: CreditStatus;
  score?: number;
  providerReference?: string;
}

/** Port of a credit agency. */
export interface CreditCheckProvider {
  readonly name: string;
  check(request: CreditCheckRequest): Promise<CreditCheckResult>;
}

export const CREDIT_CHECK_SETTING_KEY = 'customers.creditCheck';

const statuses: readonly CreditStatus[] = ['GOOD', 'MEDIUM', 'BAD', 'UNKNOWN'];

/**
 * Default adapter: `{"status": "GOOD", "score": 720}` from the tenant setting decides every check;
 * without the setting (or with an unknown status) the outcome is UNKNOWN.
 */
export class ConfiguredCreditCheckProvider implements CreditCheckProvider {
  readonly name = 'configured';

  constructor(private readonly configuration: Record<string, unknown>) {}

  async check(request: CreditCheckRequest): Promise<CreditCheckResult> {
    const status = statuses.find((candidate) => candidate === this.configuration.status) ?? 'UNKNOWN';
    const score = this.configuration.score;
    return {
      status,
      score: typeof score === 'number' && Number.isSafeInteger(score) ? score : undefined,
      providerReference: `configured-${request.customerId}-${Date.now()}`,
    };
  }
}
