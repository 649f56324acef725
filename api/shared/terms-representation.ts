// The terms and conditions representation, which both interfaces use: the operator manages versions, the
// app shows the ones that apply to the customer.
import { Type, type Static } from '@sinclair/typebox';
import { TermsAndConditions } from '../../db/entities/TermsAndConditions.js';
import { component, DateTime, Id, Nullable } from '../kernel/schemas.js';

export const TermsSchema = component(
  'TermsAndConditions',
  Type.Object(
    {
      id: Id(),
      branchId: Nullable(Id({ description: 'null: tenant-wide terms.' })),
      version: Type.Integer({ minimum: 1 }),
      name: Type.String(),
      url: Type.String(),
      content: Nullable(Type.String()),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** The API form of one terms version. */
export function toTerms(terms: TermsAndConditions): Static<typeof TermsSchema> {
  return {
    id: terms.id,
    branchId: terms.branch?.id ?? null,
    version: terms.version,
    name: terms.name,
    url: terms.url,
    content: terms.content ?? null,
    createdAt: terms.createdAt.toISOString(),
  };
}
