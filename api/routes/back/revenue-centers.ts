// The deprecated `/revenue-centers` family (the spec's "/revenue-centers family → use /business-units"):
// revenue centers are business units, so each path is the business-unit declaration itself under the
// old name — same schemas, permissions, handler and answers — marked deprecated with its replacement.
import type { AnyRoute } from '../../kernel/route.js';
import {
  createBusinessUnit,
  deleteBusinessUnit,
  getBusinessUnit,
  listBusinessUnits,
  patchBusinessUnit,
  updateBusinessUnit,
} from './business-units.js';

/** A business-unit route under the revenue-center path, answering exactly as its replacement. */
function asRevenueCenterRoute<R extends AnyRoute>(route: R, operationId: string): R {
  return {
    ...route,
    operationId,
    path: route.path.replace(/^\/business-units/, '/revenue-centers'),
    summary: `${route.summary} (revenue center; deprecated)`,
    tags: ['Revenue Centers'],
    deprecated: { replacement: `${route.method.toUpperCase()} ${route.path}` },
  };
}

export const revenueCenterRoutes = [
  asRevenueCenterRoute(listBusinessUnits, 'listRevenueCenters'),
  asRevenueCenterRoute(getBusinessUnit, 'getRevenueCenter'),
  asRevenueCenterRoute(createBusinessUnit, 'createRevenueCenter'),
  asRevenueCenterRoute(updateBusinessUnit, 'updateRevenueCenter'),
  asRevenueCenterRoute(patchBusinessUnit, 'patchRevenueCenter'),
  asRevenueCenterRoute(deleteBusinessUnit, 'deleteRevenueCenter'),
];
