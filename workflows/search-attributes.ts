import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Custom search attributes let ops filter every long-running process in the Temporal UI
// by tenant, branch, vehicle, customer, business unit (finance) and business state. The dev server registers them
// at start (platform/temporal-dev-server.ts); docker-compose registers them with the CLI.
export const TenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
export const BranchIdKey = defineSearchAttributeKey('BranchId', SearchAttributeType.KEYWORD);
export const VehicleIdKey = defineSearchAttributeKey('VehicleId', SearchAttributeType.KEYWORD);
export const CustomerIdKey = defineSearchAttributeKey('CustomerId', SearchAttributeType.KEYWORD);
export const BusinessUnitIdKey = defineSearchAttributeKey('BusinessUnitId', SearchAttributeType.KEYWORD);
export const EntityStateKey = defineSearchAttributeKey('EntityState', SearchAttributeType.KEYWORD);

/** Name → Temporal type name, as `temporal server start-dev --search-attribute NAME=TYPE` expects. */
export const searchAttributeDefinitions: Record<string, 'Keyword'> = {
  TenantId: 'Keyword',
  BranchId: 'Keyword',
  VehicleId: 'Keyword',
  CustomerId: 'Keyword',
  BusinessUnitId: 'Keyword',
  EntityState: 'Keyword',
};
