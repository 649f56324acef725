import { PricingAssignment } from '../../db/entities/PricingAssignment.js';
import { PricingBundle } from '../../db/entities/PricingBundle.js';
import { PricingBundleVersion } from '../../db/entities/PricingBundleVersion.js';
import { createPricingActivities } from '../../activities/pricing.js';
import { pricingBundleRoutes } from '../../api/routes/back/pricing-bundles.js';
import { pricingBundleVersionRoutes } from '../../api/routes/back/pricing-bundle-versions.js';
import { pricingAssignmentRoutes } from '../../api/routes/back/pricing-assignments.js';
import { pricingSimulatorRoutes } from '../../api/routes/back/pricing-simulator.js';
import { appPricingRoutes } from '../../api/routes/front/pricing.js';
import { pricingErrors } from '../../domain/pricing.errors.js';
import { Migration20261122103719_pricing } from '../../db/migrations/Migration20261122103719_pricing.js';
import { pricingSeed } from '../../db/seed/pricing.js';
import { defineDomain } from './domain.js';

/** Pricing bundles and versions, assignments to branches and categories, the engine's simulators. */
export const pricingDomain = defineDomain({
  name: 'pricing',
  errors: pricingErrors,
  seed: pricingSeed,
  entities: [PricingBundle, PricingBundleVersion, PricingAssignment],
  migrations: [Migration20261122103719_pricing],
  permissions: { finance: ['PRICING_READ', 'PRICING_WRITE', 'PRICING_PUBLISH'] },
  routes: [
    ...pricingBundleRoutes,
    ...pricingBundleVersionRoutes,
    ...pricingAssignmentRoutes,
    ...pricingSimulatorRoutes,
    ...appPricingRoutes,
  ],
  activities: createPricingActivities,
  workflows: new URL('../../workflows/pricing.ts', import.meta.url),
  processes: [
    { workflowIdPrefix: 'pricing-version', notRunning: 'ODP102', noun: 'pricing version publication' },
  ],
});
