import { AppSigningKey } from '../../db/entities/AppSigningKey.js';
import { CostCenter } from '../../db/entities/CostCenter.js';
import { Customer } from '../../db/entities/Customer.js';
import { Verification } from '../../db/entities/Verification.js';
import { VerificationMedia } from '../../db/entities/VerificationMedia.js';
import { GroupMembership } from '../../db/entities/GroupMembership.js';
import { OneTimeCode } from '../../db/entities/OneTimeCode.js';
import { RefreshToken } from '../../db/entities/RefreshToken.js';
import { SignInThrottle } from '../../db/entities/SignInThrottle.js';
import { TermsAcceptance } from '../../db/entities/TermsAcceptance.js';
import { TermsAndConditions } from '../../db/entities/TermsAndConditions.js';
import { UserGroup } from '../../db/entities/UserGroup.js';
import { PaymentSource } from '../../db/entities/PaymentSource.js';
import { CreditRating } from '../../db/entities/CreditRating.js';
import { customerAuthRoutes } from '../../api/routes/auth/customer.js';
import { customerRoutes } from '../../api/routes/back/customers.js';
import { termsRoutes } from '../../api/routes/back/terms.js';
import { accountRoutes } from '../../api/routes/front/account.js';
import { groupRoutes } from '../../api/routes/back/groups.js';
import { frontGroupRoutes } from '../../api/routes/front/groups.js';
import { groupManagementRoutes } from '../../api/routes/front/group-management.js';
import { costCenterRoutes } from '../../api/routes/front/cost-centers.js';
import { verificationRoutes } from '../../api/routes/back/verifications.js';
import { customerRecordRoutes } from '../../api/routes/back/customer-records.js';
import { frontVerificationRoutes } from '../../api/routes/front/verifications.js';
import { appSigningKeyRoutes } from '../../api/routes/back/app-signing-keys.js';
import { customerErrors } from '../../domain/customers.errors.js';
import { Migration20261122105400_customers } from '../../db/migrations/Migration20261122105400_customers.js';
import { Migration20261122121500_customer_search } from '../../db/migrations/Migration20261122121500_customer_search.js';
import { Migration20261122165215_signing_key_rotation } from '../../db/migrations/Migration20261122165215_signing_key_rotation.js';
import { customerSeed } from '../../db/seed/customers.js';
import { customerTimeline } from '../../api/routes/back/customer-timeline.js';
import { defineDomain } from './domain.js';

/** The people who rent: identity (sign-up, sign-in, tokens), profiles, terms, business accounts. */
export const customerDomain = defineDomain({
  name: 'customers',
  errors: customerErrors,
  seed: customerSeed,
  entities: [
    Customer,
    RefreshToken,
    OneTimeCode,
    SignInThrottle,
    AppSigningKey,
    TermsAndConditions,
    TermsAcceptance,
    UserGroup,
    GroupMembership,
    CostCenter,
    Verification,
    VerificationMedia,
    PaymentSource,
    CreditRating,
  ],
  migrations: [
    Migration20261122105400_customers,
    Migration20261122121500_customer_search,
    Migration20261122165215_signing_key_rotation,
  ],
  permissions: {
    operational: [
      'CUSTOMER_READ',
      'CUSTOMER_WRITE',
      'TERMS_MANAGE',
      'GROUP_READ',
      'GROUP_WRITE',
      'VERIFICATION_REVIEW',
      'CUSTOMER_EXPORT',
      'APP_SIGNING_KEY_MANAGE',
    ],
  },
  timelines: [customerTimeline],
  routes: [
    ...customerAuthRoutes,
    ...customerRoutes,
    ...termsRoutes,
    ...groupRoutes,
    ...accountRoutes,
    ...frontGroupRoutes,
    ...groupManagementRoutes,
    ...costCenterRoutes,
    ...verificationRoutes,
    ...customerRecordRoutes,
    ...frontVerificationRoutes,
    ...appSigningKeyRoutes,
  ],
});
