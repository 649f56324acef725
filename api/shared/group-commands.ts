// The update of a business account, which both interfaces apply (operators may change more fields than the
// managing members in the app), with the address and settings fields of a write.
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessUnit } from '../../db/entities/BusinessUnit.js';
import { CostCenter } from '../../db/entities/CostCenter.js';
import type { UserGroup } from '../../db/entities/UserGroup.js';
import { DomainError } from '../../domain/errors.js';
import { assertReceiptsCompatible, billingCycles } from '../../domain/customer.js';
import { component, Id, Int, Nullable, Str, StringEnum } from '../kernel/schemas.js';

const Text = (max: number) => Type.Optional(Nullable(Str(max)));

/** The postal address fields of a business-account write (both interfaces). */
export const GroupAddress = {
  street: Text(200),
  houseNumber: Text(32),
  addressAddition: Text(200),
  postcode: Text(32),
  city: Text(100),
  country: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{2}$', maxLength: 2 }))),
};

/** The account settings an operator's create or update may set. */
export const GroupSettings = Type.Object(
  {
    requireDrivingLog: Type.Optional(Type.Boolean()),
    shouldIgnoreBCategoryRentalRequirement: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** The operator's update of a business account; the app sends a subset of it. */
export const GroupUpdate = component(
  'UserGroupUpdate',
  Type.Object(
    {
      name: Type.Optional(Str(200, { minLength: 1 })),
      billingCycle: Type.Optional(StringEnum(billingCycles)),
      useReceiptInsteadOfInvoice: Type.Optional(Type.Boolean()),
      checkRentalRequirements: Type.Optional(Type.Boolean()),
      skipPreAuth: Type.Optional(Type.Boolean()),
      joinRequiresApproval: Type.Optional(Type.Boolean()),
      maxMembers: Type.Optional(Int(1, 100_000)),
      defaultCostCenterId: Type.Optional(Nullable(Id())),
      defaultBusinessUnitId: Type.Optional(Nullable(Id())),
      settings: Type.Optional(GroupSettings),
      ...GroupAddress,
    },
    { additionalProperties: false },
  ),
);

/** Refuses a default business unit the tenant does not have (UG409); null and undefined name none. */
export async function assertBusinessUnit(em: EntityManager, id: number | null | undefined): Promise<void> {
  if (id === undefined || id === null) return;
  if (!(await em.count(BusinessUnit, id))) throw new DomainError('UG409', `business unit ${id} not found`);
}

/** Applies an update to a business account under its rules (UG131, UG409). */
export async function applyGroupUpdate(
  em: EntityManager,
  group: UserGroup,
  body: Static<typeof GroupUpdate>,
): Promise<void> {
  const { settings, defaultBusinessUnitId, defaultCostCenterId, ...fields } = body;
  assertReceiptsCompatible(
    fields.billingCycle ?? group.billingCycle,
    fields.useReceiptInsteadOfInvoice ?? group.useReceiptInsteadOfInvoice,
  );
  if (defaultCostCenterId !== undefined && defaultCostCenterId !== null) {
    if (!(await em.count(CostCenter, { id: defaultCostCenterId, group })))
      throw new DomainError('UG409', `cost center ${defaultCostCenterId} is not one of this account's`);
  }
  await assertBusinessUnit(em, defaultBusinessUnitId);
  Object.assign(group, fields, settings ?? {});
  if (defaultCostCenterId !== undefined) group.defaultCostCenterId = defaultCostCenterId;
  if (defaultBusinessUnitId !== undefined)
    group.defaultBusinessUnit =
      defaultBusinessUnitId === null ? null : em.getReference(BusinessUnit, defaultBusinessUnitId);
}
