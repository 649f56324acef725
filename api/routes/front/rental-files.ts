// App endpoints of a rental's files: the customer links photos they uploaded (POST /files) to their own
// rental — while it runs and until one hour after it ended (the spec's Limits) — and lists them.
import { Type } from '@sinclair/typebox';
import { Rental } from '../../../db/entities/Rental.js';
import { filesLinkedTo, linkFiles } from '../../../db/files.js';
import { DomainError } from '../../../domain/errors.js';
import { rentalTakesFiles } from '../../../domain/files.js';
import { terminalRentalStates } from '../../../domain/rental.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { Id } from '../../kernel/schemas.js';
import { FileReferenceSchema, FileUuidList } from '../../shared/file-representation.js';

const tags = ['Rentals', 'Files'];

/** The caller's rental of the path: R404 when it does not exist, A105404 when it is another customer's. */
const myRental = (ctx: RouteContext<{ rentalId: number }>) =>
  ctx.once('my-rental-files', async () => {
    const [rental, customer] = await Promise.all([
      ctx.em.findOne(Rental, ctx.params.rentalId),
      ctx.customer(),
    ]);
    if (!rental) throw new DomainError('R404', `rental ${ctx.params.rentalId} not found`);
    if (rental.customer.id !== customer.id)
      throw new DomainError(
        'A105404',
        "the files of another customer's rental are not yours to see or add to",
      );
    return rental;
  });

const FileList = Type.Array(FileReferenceSchema);

export const appLinkRentalFiles = defineRoute({
  operationId: 'appLinkRentalFiles',
  method: 'post',
  path: '/rentals/{rentalId}/files',
  interface: 'front',
  summary: "Link uploaded files to one's rental (until one hour after it ended)",
  description:
    "Links files the caller uploaded (POST /files) to the caller's rental and records RENTAL_FILES_LINKED. Allowed while the rental runs and until one hour after it ended (A105410 later); a file already linked to it is L407, a uuid that is not the caller's upload L404. Answers the rental's files.",
  tags,
  params: Type.Object({ rentalId: Id() }),
  body: Type.Object({ files: FileUuidList }, { additionalProperties: false }),
  access: { customer: "only the caller's own rentals (another customer's is A105404)." },
  responses: { 201: { description: "The rental's files, oldest link first", schema: FileList } },
  errors: ['R404', 'A105', 'L404', 'L407'],
  async handler(ctx) {
    const rental = await myRental(ctx);
    const end = rental.endedAt ?? (terminalRentalStates.includes(rental.state) ? rental.updatedAt : null);
    if (!rentalTakesFiles(end, new Date()))
      throw new DomainError('A105410', 'files can be linked to a rental until one hour after it ended');
    const links = await linkFiles(ctx.em, {
      entityType: 'RENTAL',
      entityId: rental.id,
      fileUuids: ctx.body.files,
      linkedBy: ctx.actor,
      scope: { branchId: rental.branch.id, customerId: rental.customer.id },
      ownedBy: rental.customer.id,
    });
    ctx.recordEvent({
      type: 'RENTAL_FILES_LINKED',
      branchId: rental.branch.id,
      vehicleId: rental.vehicle.id,
      rentalId: rental.id,
      customerId: rental.customer.id,
      payload: { files: links.map((link) => link.file.uuid) },
    });
    await ctx.em.flush();
    const files = await filesLinkedTo(ctx.em, 'RENTAL', [rental.id]);
    return created(files.get(String(rental.id)) ?? []);
  },
});

export const appRentalFiles = defineRoute({
  operationId: 'appRentalFiles',
  method: 'get',
  path: '/rentals/{rentalId}/files',
  interface: 'front',
  summary: "The files linked to one's rental",
  tags,
  params: Type.Object({ rentalId: Id() }),
  access: { customer: "only the caller's own rentals (another customer's is A105404)." },
  responses: { 200: { description: "The rental's files, oldest link first", schema: FileList } },
  errors: ['R404', 'A105'],
  async handler(ctx) {
    const rental = await myRental(ctx);
    const files = await filesLinkedTo(ctx.em, 'RENTAL', [rental.id]);
    return ok(files.get(String(rental.id)) ?? []);
  },
});

export const appRentalFileRoutes = [appLinkRentalFiles, appRentalFiles];
