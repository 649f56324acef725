// Operator endpoint of a rental's files: the photos and documents the customer (or an operator) linked
// to the rental, each downloadable through GET /files/{fileUuid}.
import { Type } from '@sinclair/typebox';
import { filesLinkedTo } from '../../../db/files.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { Id } from '../../kernel/schemas.js';
import { FileReferenceSchema } from '../../shared/file-representation.js';
import { rentalOf } from '../../shared/rental-representation.js';

export const rentalFiles = defineRoute({
  operationId: 'rentalFiles',
  method: 'get',
  path: '/rentals/{rentalId}/files',
  interface: 'back',
  summary: 'The files linked to a rental',
  tags: ['Rentals', 'Files'],
  params: Type.Object({ rentalId: Id() }),
  access: {
    permission: 'RENTAL_READ',
    branchOf: 'the rental',
    branch: async (ctx) => (await rentalOf(ctx)).branch.id,
  },
  responses: {
    200: { description: "The rental's files, oldest link first", schema: Type.Array(FileReferenceSchema) },
  },
  errors: ['R404'],
  async handler(ctx) {
    const rental = await rentalOf(ctx);
    const files = await filesLinkedTo(ctx.em, 'RENTAL', [rental.id]);
    return ok(files.get(String(rental.id)) ?? []);
  },
});

export const rentalFileRoutes = [rentalFiles];
