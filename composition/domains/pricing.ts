import { PricingAssignment } from '../../db/entities/PricingAssignment.js';
import { PricingBundle } from '../../db/entities/PricingBundle.js';
import { PricingBundleVersion } from '../../db/entities/PricingBundleVersion.js';
import { createPricingActivities } from '../../activities/pricing.js';
import { pricingRoutes } from '../../api/routes/back/pricing.js';
import { appPricingRoutes } from '../../api/routes/front/pricing.js';
import { defineDomain } from './domain.js';

/** Pricing bundles and versions, assignments to branches and categories, the engine's simulators. */
export const pricingDomain = defineDomain({
  name: 'pricing',
  entities: [PricingBundle, PricingBundleVersion, PricingAssignment],
  permissions: { finance: ['PRICING_READ', 'PRICING_WRITE', 'PRICING_PUBLISH'] },
  routes: [...pricingRoutes, ...appPricingRoutes],
  activities: createPricingActivities,
  workflows: new URL('../../workflows/pricing.ts', import.meta.url),
  processes: [
    { workflowIdPrefix: 'pricing-version', notRunning: 'ODP102', noun: 'pricing version publication' },
  ],
});
