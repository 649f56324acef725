// App endpoints of files: a signed-in customer uploads a file (multipart/form-data, at most 2 MiB), links
// it by uuid (their rental's files, POST /rentals/{rentalId}/files), and downloads files that are theirs
// or linked to what is theirs through a short-lived pre-signed link (303 See Other), or reads the link.
import { Type } from '@sinclair/typebox';
import { created, defineRoute, ok, seeOther } from '../../kernel/route.js';
import {
  FileLinkSchema,
  FileUuid,
  toDownloadLink,
  toUploadedFile,
  UploadedFileSchema,
} from '../../shared/file-representation.js';
import { downloadableFile, presignedDownload, receiveUpload } from '../../shared/file-transfer.js';

const tags = ['Files'];

const UploadBody = Type.Object(
  {
    // Optional here: the handler reads the stream and answers what is missing with a catalogue code.
    file: Type.Optional(
      Type.String({
        format: 'binary',
        maxLength: 2 * 1024 * 1024,
        description:
          'The file: one part named `file`, with a filename and a Content-Type (L406 without), at most 2 MiB (L405).',
      }),
    ),
  },
  { description: 'multipart/form-data with exactly one part, named `file`.' },
);

const downloadAccess = {
  customer:
    "files the caller uploaded, and files linked to the caller's own rentals or account; others answer A103404, A105404, A106404, A107404 or A108404.",
};

export const appUploadFile = defineRoute({
  operationId: 'appUploadFile',
  method: 'post',
  path: '/files',
  interface: 'front',
  summary: 'Upload a file (then link it by its uuid)',
  description:
    "Stores the file in the object store and answers its uuid; link it to one of the caller's rentals with POST /rentals/{rentalId}/files. Until it is linked only the caller may download it.",
  tags,
  body: UploadBody,
  bodyContentTypes: ['multipart/form-data'],
  access: { customer: 'the file belongs to the caller.' },
  responses: {
    201: {
      description: 'The file is stored',
      schema: UploadedFileSchema,
      headers: { Location: { description: 'GET it here (a 303 to its download)', schema: Type.String() } },
    },
  },
  errors: ['L303', 'L405', 'L406'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const file = await receiveUpload(ctx, { customerId: customer.id });
    return created(toUploadedFile(file), { Location: `${ctx.baseUrl}/files/${file.uuid}` });
  },
});

export const appDownloadFile = defineRoute({
  operationId: 'appDownloadFile',
  method: 'get',
  path: '/files/{fileUuid}',
  interface: 'front',
  summary: 'Download a file: 303 to a short-lived pre-signed link of the object store',
  description:
    'Answers 303 See Other with the pre-signed address in Location (valid FILE_LINK_TTL_SECONDS, 300 s by default). GET /files/{fileUuid}/link answers the address as JSON.',
  tags,
  params: Type.Object({ fileUuid: FileUuid }),
  access: downloadAccess,
  responses: {
    303: {
      description: 'Fetch the file from the pre-signed address (no token needed; it expires)',
      headers: {
        Location: { description: 'The pre-signed address', schema: Type.String() },
        'Cache-Control': { description: '`no-store`: the address is short-lived', schema: Type.String() },
      },
    },
  },
  errors: ['L404', 'L303', 'A103', 'A105', 'A106', 'A107', 'A108'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const file = await downloadableFile(ctx, ctx.params.fileUuid, { customerId: customer.id });
    const { url } = await presignedDownload(ctx, file);
    return seeOther(url, { 'Cache-Control': 'no-store' });
  },
});

export const appFileDownloadLink = defineRoute({
  operationId: 'appFileDownloadLink',
  method: 'get',
  path: '/files/{fileUuid}/link',
  interface: 'front',
  summary: "A file's metadata and pre-signed download address, as JSON",
  tags,
  params: Type.Object({ fileUuid: FileUuid }),
  access: downloadAccess,
  responses: { 200: { description: 'The download address and when it expires', schema: FileLinkSchema } },
  errors: ['L404', 'L303', 'A103', 'A105', 'A106', 'A107', 'A108'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const file = await downloadableFile(ctx, ctx.params.fileUuid, { customerId: customer.id });
    const { url, expiresAt } = await presignedDownload(ctx, file);
    return ok(toDownloadLink(file, url, expiresAt));
  },
});

export const appFileRoutes = [appUploadFile, appDownloadFile, appFileDownloadLink];
