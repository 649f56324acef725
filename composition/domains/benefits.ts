import { Annotation } from '../../db/entities/Annotation.js';
import { AnnotationAssignment } from '../../db/entities/AnnotationAssignment.js';
import { Reward } from '../../db/entities/Reward.js';
import { Voucher } from '../../db/entities/Voucher.js';
import { VoucherCode } from '../../db/entities/VoucherCode.js';
import { VoucherConsumption } from '../../db/entities/VoucherConsumption.js';
import { VoucherPackagePurchase } from '../../db/entities/VoucherPackagePurchase.js';
import { Voucherable } from '../../db/entities/Voucherable.js';
import { benefitErrors } from '../../domain/benefits.errors.js';
import { UserSubscription } from '../../db/entities/UserSubscription.js';
import { UserSubscriptionPeriod } from '../../db/entities/UserSubscriptionPeriod.js';
import { Migration20261125062500_user_subscriptions } from '../../db/migrations/Migration20261125062500_user_subscriptions.js';
import { Migration20261125073620_user_subscription_step_key } from '../../db/migrations/Migration20261125073620_user_subscription_step_key.js';
import { Migration20261125062708_benefits } from '../../db/migrations/Migration20261125062708_benefits.js';
import { Migration20261201200000_benefit_price_lines } from '../../db/migrations/Migration20261201200000_benefit_price_lines.js';
import { Migration20261201203000_surcharge_price_lines } from '../../db/migrations/Migration20261201203000_surcharge_price_lines.js';
import { Migration20261206024000_voucherable_redeems_per_customer } from '../../db/migrations/Migration20261206024000_voucherable_redeems_per_customer.js';
import { voucherableRoutes } from '../../api/routes/back/voucherables.js';
import { annotationRoutes } from '../../api/routes/back/annotations.js';
import { annotationCustomerRoutes } from '../../api/routes/back/annotations-customers.js';
import { voucherRoutes } from '../../api/routes/back/vouchers.js';
import { redeemableRoutes } from '../../api/routes/back/vouchers-redeemable.js';
import { applyVoucherRoutes } from '../../api/routes/back/apply-vouchers.js';
import { myVoucherRoutes } from '../../api/routes/front/vouchers.js';
import { promotionRoutes } from '../../api/routes/front/promotions.js';
import { appPackageRoutes } from '../../api/routes/front/packages.js';
import { legacyPackageRoutes } from '../../api/routes/back/packages.js';
import { rewardRoutes } from '../../api/routes/back/rewards.js';
import { userSubscriptionRoutes } from '../../api/routes/back/user-subscriptions.js';
import { deprecatedSubscriptionRoutes } from '../../api/routes/back/subscriptions.js';
import { appSubscriptionRoutes } from '../../api/routes/front/subscriptions.js';
import { appUserSubscriptionRoutes } from '../../api/routes/front/user-subscriptions.js';
import { createSubscriptionActivities } from '../../activities/subscription.js';
import { createVoucherStateActivities } from '../../activities/voucher-states.js';
import { benefitSeed } from '../../db/seed/benefits.js';
import { defineDomain } from './domain.js';

/** Voucherables, vouchers, promotions, subscriptions, packages and rewards: so far the spec's codes only. */
export const benefitDomain = defineDomain({
  name: 'benefits',
  errors: benefitErrors,
  // The domain's one seed step: the vouchers' part (db/seed/benefits.ts); the subscriptions' part chains after it.
  seed: benefitSeed,
  entities: [
    Voucherable,
    Voucher,
    VoucherCode,
    VoucherConsumption,
    VoucherPackagePurchase,
    Annotation,
    AnnotationAssignment,
    Reward,
    UserSubscription,
    UserSubscriptionPeriod,
  ],
  migrations: [
    Migration20261125062500_user_subscriptions,
    Migration20261125073620_user_subscription_step_key,
    Migration20261125062708_benefits,
    // Benefits in prices: invoice lines of the BENEFIT group.
    Migration20261201200000_benefit_price_lines,
    Migration20261201203000_surcharge_price_lines,
    // A template's redemptions per customer across all its codes (issue 33).
    Migration20261206024000_voucherable_redeems_per_customer,
  ],
  // Vouchers' permissions: templates, vouchers, codes, annotations, rewards and packages (finance scope).
  permissions: {
    finance: [
      'BENEFITS_READ',
      'BENEFITS_MANAGE',
      // Subscriptions' permissions: user subscriptions (list, read; cancel, buy on a customer's behalf).
      'USER_SUBSCRIPTION_READ',
      'USER_SUBSCRIPTION_MANAGE',
    ],
  },
  // Subscriptions: the user subscription workflow, its activities and its process kind; the voucher state
  // keeper (a Temporal Schedule per tenant, workers/voucher-state-starter.ts) and its activity.
  activities: (deps) => ({ ...createSubscriptionActivities(deps), ...createVoucherStateActivities(deps) }),
  workflows: new URL('../../workflows/benefits.ts', import.meta.url),
  processes: [{ workflowIdPrefix: 'subscription', notRunning: 'SU104', noun: 'subscription' }],
  routes: [
    // Vouchers' routes
    ...voucherableRoutes,
    ...annotationRoutes,
    ...annotationCustomerRoutes,
    ...voucherRoutes,
    ...redeemableRoutes,
    ...applyVoucherRoutes,
    ...myVoucherRoutes,
    ...promotionRoutes,
    ...appPackageRoutes,
    ...legacyPackageRoutes,
    ...rewardRoutes,
    // Subscriptions' routes
    ...userSubscriptionRoutes,
    ...deprecatedSubscriptionRoutes,
    ...appSubscriptionRoutes,
    ...appUserSubscriptionRoutes,
  ],
});
