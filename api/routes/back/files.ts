// Operator endpoints of files: upload one (multipart/form-data, at most 2 MiB) for a branch, then link it
// by uuid (tasks' taskData.files, damages' files, issue comments); download through a short-lived
// pre-signed link of the object store (303 See Other), or read the link as JSON.
import { Type } from '@sinclair/typebox';
import { created, defineRoute, ok, seeOther } from '../../kernel/route.js';
import { Id } from '../../kernel/schemas.js';
import {
  FileLinkSchema,
  FileUuid,
  toDownloadLink,
  toUploadedFile,
  UploadedFileSchema,
} from '../../shared/file-representation.js';
import { downloadableFile, presignedDownload, receiveUpload } from '../../shared/file-transfer.js';

const tags = ['Files'];

/** The multipart body of an upload, as documented (the handler reads it as a stream). */
export const UploadBody = Type.Object(
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
  anyCaller:
    "the file is answered to its uploader, and to callers holding the read permission of an entity it is linked to on that entity's branch (TASK_READ, DAMAGE_READ, ISSUE_READ, RENTAL_READ, VEHICLE_READ, CUSTOMER_READ); others get A103403, A105403, A106403, A107403 or A108403.",
};

export const uploadFile = defineRoute({
  operationId: 'uploadFile',
  method: 'post',
  path: '/files',
  interface: 'back',
  summary: 'Upload a file (then link it by its uuid)',
  description:
    'Stores the file in the object store and answers its uuid. Files are uploaded first and then linked by uuid: `taskData.files` of a task, `files` of a damage, an issue comment. Until it is linked, only its uploader may download it.',
  tags,
  query: Type.Object({ branchId: Id({ description: 'The branch the file is uploaded for.' }) }),
  body: UploadBody,
  bodyContentTypes: ['multipart/form-data'],
  access: {
    permission: 'FILE_UPLOAD',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: {
    201: {
      description: 'The file is stored',
      schema: UploadedFileSchema,
      headers: { Location: { description: 'GET it here (a 303 to its download)', schema: Type.String() } },
    },
  },
  errors: ['L303', 'L405', 'L406'],
  async handler(ctx) {
    const file = await receiveUpload(ctx, { branchId: ctx.query.branchId });
    return created(toUploadedFile(file), { Location: `${ctx.baseUrl}/files/${file.uuid}` });
  },
});

export const downloadFile = defineRoute({
  operationId: 'downloadFile',
  method: 'get',
  path: '/files/{fileUuid}',
  interface: 'back',
  summary: 'Download a file: 303 to a short-lived pre-signed link of the object store',
  description:
    "Answers 303 See Other with the pre-signed address in Location (valid FILE_LINK_TTL_SECONDS, 300 s by default); the object store serves the bytes with the file's Content-Type and an attachment Content-Disposition. GET /files/{fileUuid}/link answers the address as JSON.",
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
    const file = await downloadableFile(ctx, ctx.params.fileUuid, { operator: true });
    const { url } = await presignedDownload(ctx, file);
    return seeOther(url, { 'Cache-Control': 'no-store' });
  },
});

export const fileDownloadLink = defineRoute({
  operationId: 'fileDownloadLink',
  method: 'get',
  path: '/files/{fileUuid}/link',
  interface: 'back',
  summary: "A file's metadata and pre-signed download address, as JSON",
  tags,
  params: Type.Object({ fileUuid: FileUuid }),
  access: downloadAccess,
  responses: { 200: { description: 'The download address and when it expires', schema: FileLinkSchema } },
  errors: ['L404', 'L303', 'A103', 'A105', 'A106', 'A107', 'A108'],
  async handler(ctx) {
    const file = await downloadableFile(ctx, ctx.params.fileUuid, { operator: true });
    const { url, expiresAt } = await presignedDownload(ctx, file);
    return ok(toDownloadLink(file, url, expiresAt));
  },
});

export const fileRoutes = [uploadFile, downloadFile, fileDownloadLink];
