// The file representations both interfaces answer: a linked file as other representations list it
// (tasks, damages, rentals, issue comments), an uploaded file, and a download link.
import { Type, type Static } from '@sinclair/typebox';
import type { StoredFile } from '../../db/entities/StoredFile.js';
import { fileReference } from '../../db/files.js';
import { component, DateTime, Id } from '../kernel/schemas.js';

/** A file uuid in a path or a list: any letter case (stored and compared lower-case). */
export const FileUuid = Type.String({
  format: 'uuid',
  maxLength: 36,
  description: 'The file id answered by POST /files.',
});

/** The uuids of files uploaded before (POST /files), to link. */
export const FileUuidList = Type.Array(FileUuid, {
  minItems: 1,
  maxItems: 20,
  description: 'uuids of files uploaded before (POST /files); each may be linked once.',
});

export const FileReferenceSchema = component(
  'FileReference',
  Type.Object(
    {
      uuid: Type.String({ format: 'uuid' }),
      fileName: Type.String(),
      contentType: Type.String(),
      size: Type.Integer({ minimum: 1, description: 'Bytes.' }),
      createdAt: DateTime(),
    },
    { additionalProperties: false, description: 'A file (download it with GET /files/{fileUuid}).' },
  ),
);

export const UploadedFileSchema = component(
  'UploadedFile',
  Type.Object(
    {
      uuid: Type.String({ format: 'uuid', description: 'Link the file by this id.' }),
      fileName: Type.String(),
      contentType: Type.String(),
      size: Type.Integer({ minimum: 1, description: 'Bytes, at most 2,097,152.' }),
      sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the bytes, hex.' }),
      branchId: Type.Union([Id(), Type.Null()], { description: "The branch of an operator's upload." }),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

export const FileLinkSchema = component(
  'FileDownloadLink',
  Type.Object(
    {
      uuid: Type.String({ format: 'uuid' }),
      fileName: Type.String(),
      contentType: Type.String(),
      size: Type.Integer({ minimum: 1 }),
      sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
      url: Type.String({ description: 'Pre-signed GET address of the object store; no token needed.' }),
      expiresAt: DateTime({ description: 'The address is refused by the store from then on.' }),
    },
    { additionalProperties: false },
  ),
);

/** The answer of an upload. */
export function toUploadedFile(file: StoredFile): Static<typeof UploadedFileSchema> {
  return {
    uuid: file.uuid,
    fileName: file.fileName,
    contentType: file.contentType,
    size: file.size,
    sha256: file.sha256,
    branchId: file.branchId ?? null,
    createdAt: file.createdAt.toISOString(),
  };
}

/** The JSON form of a download: the file and its pre-signed address. */
export function toDownloadLink(
  file: StoredFile,
  url: string,
  expiresAt: Date,
): Static<typeof FileLinkSchema> {
  return {
    uuid: file.uuid,
    fileName: file.fileName,
    contentType: file.contentType,
    size: file.size,
    sha256: file.sha256,
    url,
    expiresAt: expiresAt.toISOString(),
  };
}

export { fileReference };
