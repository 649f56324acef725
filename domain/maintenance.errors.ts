// Error codes of the maintenance service: route optimisation (the spec's RO*) and the project's codes for
// maintenance logs, field routes and service vehicles (MT*). N404 (note not found) stays with the fleet
// domain's vehicle notes: field routes carry no notes of their own.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The maintenance domain's catalogue entries; `when` says when the project answers a code. */
export const maintenanceErrors = defineErrorCodes(
  'maintenance',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Route optimisation (spec). RO101/RO102 belong to an external routing provider, which the project does not use (docs/maintenance.md).
    'RO100': { code: 'RO100', meaning: 'routing not set up', retryable: false, httpStatus: 422, source: 'spec', when: 'a route created or edited with optimize: true on a branch whose maintenance.routing setting is missing or disabled' },
    'RO101': { code: 'RO101', meaning: 'routing unavailable', retryable: true, httpStatus: 503, source: 'spec', when: 'reserved for an external routing provider; never answered today' },
    'RO102': { code: 'RO102', meaning: 'routing rate limit reached', retryable: true, httpStatus: 429, source: 'spec', when: 'reserved for an external routing provider; never answered today' },
    'RO103': { code: 'RO103', meaning: 'route optimization error', retryable: true, httpStatus: 422, source: 'spec', when: 'optimize: true with more stops than maintenance.routing.maxStops (at most 200) or a stop without a position; 422, not 500: the optimiser runs in process and fails only on its input' },
    // Project-defined (MT*)
    'MT100': { code: 'MT100', meaning: 'the maintenance log window is invalid', retryable: false, httpStatus: 400, source: 'project', when: 'endDate not after startDate, a window over 366 days, or hourly buckets over more than 31 days' },
    'MT404': { code: 'MT404', meaning: 'field route not found', retryable: false, httpStatus: 404, source: 'project', when: 'a route id that does not exist in the tenant' },
    'MT405': { code: 'MT405', meaning: 'field route stop or stop item not found', retryable: false, httpStatus: 404, source: 'project', when: 'a stopId or itemId that is not one of the route\'s' },
    'MT406': { code: 'MT406', meaning: 'service vehicle not found', retryable: false, httpStatus: 404, source: 'project', when: 'a service vehicle id that does not exist in the tenant (also when a route names one)' },
    'MT409': { code: 'MT409', meaning: 'the field route cannot do that in its state', retryable: false, httpStatus: 409, source: 'project', when: 'a route action its transition table refuses, COMPLETE with unsettled stops, stop or item actions on a route not IN_PROGRESS, stop edits after the route left PLANNED, edits of a final route' },
    'MT410': { code: 'MT410', meaning: 'the stop cannot do that in its state', retryable: false, httpStatus: 409, source: 'project', when: 'a stop action its transition table refuses, COMPLETE with open items, item actions at a stop not ARRIVED' },
    'MT411': { code: 'MT411', meaning: 'the stop item cannot do that in its state', retryable: false, httpStatus: 409, source: 'project', when: 'an item action on an item that is not OPEN' },
    'MT412': { code: 'MT412', meaning: 'a stop names a vehicle, station or task that does not exist or is outside the route\'s branch', retryable: false, httpStatus: 422, source: 'project', when: 'creating or editing a route whose stops name such a vehicle, station or task, or a stop naming none of vehicle, station and position' },
    'MT413': { code: 'MT413', meaning: 'the service vehicle is outside the route\'s branch or inactive', retryable: false, httpStatus: 422, source: 'project', when: 'a route naming an INACTIVE service vehicle or one of a branch that is not the route\'s branch or one of its ancestors' },
    'MT414': { code: 'MT414', meaning: 'a service vehicle with that licence plate exists', retryable: false, httpStatus: 409, source: 'project', when: 'creating or editing a service vehicle with a licence plate another of the tenant has (case and spaces ignored)' },
    'MT415': { code: 'MT415', meaning: 'the service vehicle is in use by an open route', retryable: false, httpStatus: 409, source: 'project', when: 'deleting a service vehicle named by a route not COMPLETED or CANCELLED' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    maintenance: typeof maintenanceErrors;
  }
}
