// The domain list: app routes, both OpenAPI documents, the worker's activities and workflows, the ORM's
// entities and the permission catalogue are all loops over it (../registry.ts). Adding a domain is one
// line here.
import type { DomainModule } from './domain.js';
import { organisationDomain } from './organisation.js';
import { customerDomain } from './customers.js';
import { fleetDomain } from './fleet.js';
import { rentalDomain } from './rentals.js';
import { eventDomain } from './events.js';
import { settingDomain } from './settings.js';
import { accessDomain } from './access.js';
import { financeDomain } from './finance.js';
import { pricingDomain } from './pricing.js';
import { geographyDomain } from './geography.js';
import { rentalRequirementsDomain } from './rental-requirements.js';
import { bookingDomain } from './bookings.js';
import { damageDomain } from './damages.js';
import { benefitDomain } from './benefits.js';
import { workDomain } from './work.js';
import { maintenanceDomain } from './maintenance.js';
import { issueDomain } from './issues.js';
import { fileDomain } from './files.js';
import { exportsDomain } from './exports.js';
import { webhookDomain } from './webhooks.js';
import { insightDomain } from './insight.js';
import { messageDomain } from './messages.js';
import { platformDomain } from './platform.js';
import { feedsDomain } from './feeds.js';
import { mdsDomain } from './mds.js';

export const domains: readonly DomainModule[] = [
  organisationDomain,
  customerDomain,
  fleetDomain,
  rentalDomain,
  eventDomain,
  settingDomain,
  accessDomain,
  financeDomain,
  pricingDomain,
  geographyDomain,
  rentalRequirementsDomain,
  bookingDomain,
  damageDomain,
  benefitDomain,
  workDomain,
  issueDomain,
  fileDomain,
  maintenanceDomain,
  exportsDomain,
  webhookDomain,
  insightDomain,
  messageDomain,
  platformDomain,
  feedsDomain,
  mdsDomain,
];
