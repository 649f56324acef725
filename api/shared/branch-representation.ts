// The branch representation parts both interfaces use: the branch state, its contact information, and
// the ILIKE pattern of name searches (branches on both interfaces, the operator's POIs).
import { Type } from '@sinclair/typebox';
import { branchStates } from '../../db/entities/Branch.js';
import { component, Str, StringEnum } from '../kernel/schemas.js';

export const BranchState = component('BranchState', StringEnum(branchStates));

export const ContactInfo = component(
  'ContactInfo',
  Type.Object(
    {
      email: Type.Optional(Str(254)),
      phoneNumber: Type.Optional(Str(32)),
      website: Type.Optional(Str(500)),
      address: Type.Optional(Str(300)),
      openingHours: Type.Optional(Str(300)),
    },
    { additionalProperties: false },
  ),
);

/** An ILIKE pattern matching the text anywhere, its wildcards escaped. */
export const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
