// Uploads and downloads both interfaces share: a multipart body read as a stream and cut at 2 MiB, its
// bytes put into the object store, and the access rule and pre-signed link of a download.
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Response } from 'express';
import {
  getMultipartBoundary,
  MaxFileSizeExceededError,
  MaxHeaderSizeExceededError,
  MaxPartsExceededError,
  MaxTotalSizeExceededError,
  MultipartParser,
  type MultipartPart,
} from '@remix-run/multipart-parser/node';
import { DomainError } from '../../domain/errors.js';
import {
  contentDisposition,
  fileAccessDenied,
  MAX_FILE_BYTES,
  objectKeyOf,
  readPermissionOf,
  uploadContentType,
  uploadFileName,
} from '../../domain/files.js';
import { StoredFile } from '../../db/entities/StoredFile.js';
import { fileWithLinks } from '../../db/files.js';
import type { FileLink } from '../../db/entities/FileLink.js';
import type { RouteContext } from '../kernel/route.js';

/** Room for the multipart framing around the one file part (boundaries, part headers). */
const MULTIPART_OVERHEAD_BYTES = 16 * 1024;

/** Refuses the rest of a body it will not read: the answer closes the connection instead of draining it. */
function closeAfterAnswer(req: IncomingMessage): void {
  const res = (req as IncomingMessage & { res?: Response }).res;
  if (res && !res.headersSent) res.setHeader('Connection', 'close');
}

/**
 * Reads the request's `multipart/form-data` body as it arrives and returns its one part named `file`:
 * L405 as soon as the file passes 2 MiB (or the declared length cannot fit), 0022 for other parts, a
 * malformed body or none at all. Nothing beyond the limit is buffered.
 */
export async function readFilePart(req: IncomingMessage): Promise<MultipartPart> {
  const boundary = getMultipartBoundary(req.headers['content-type'] ?? '');
  if (!boundary) throw new DomainError('0022', 'a multipart/form-data body needs its boundary parameter');
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_FILE_BYTES + MULTIPART_OVERHEAD_BYTES) {
    closeAfterAnswer(req);
    throw new DomainError(
      'L405',
      `the body declares ${declared} bytes; a file may have at most ${MAX_FILE_BYTES}`,
    );
  }
  const parser = new MultipartParser(boundary, {
    maxFileSize: MAX_FILE_BYTES,
    maxTotalSize: MAX_FILE_BYTES + MULTIPART_OVERHEAD_BYTES,
    maxHeaderSize: 8 * 1024,
    maxParts: 1,
  });
  const parts = await new Promise<MultipartPart[]>((resolve, reject) => {
    const found: MultipartPart[] = [];
    const stop = (error: unknown) => {
      req.off('data', onData);
      req.off('end', onEnd);
      closeAfterAnswer(req);
      reject(refusalOf(error));
    };
    const onData = (chunk: Buffer) => {
      try {
        for (const part of parser.write(chunk)) found.push(part);
      } catch (error) {
        stop(error);
      }
    };
    const onEnd = () => {
      try {
        parser.finish();
        resolve(found);
      } catch (error) {
        reject(refusalOf(error));
      }
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', (error) => reject(refusalOf(error)));
  });
  const [part] = parts;
  if (!part || part.name !== 'file')
    throw new DomainError('0022', 'send the file as one multipart/form-data part named "file"');
  return part;
}

function refusalOf(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (error instanceof MaxFileSizeExceededError || error instanceof MaxTotalSizeExceededError)
    return new DomainError('L405', `a file may have at most ${MAX_FILE_BYTES} bytes (2 MiB)`);
  if (error instanceof MaxPartsExceededError)
    return new DomainError(
      '0022',
      'send the file as one multipart/form-data part named "file", nothing else',
    );
  if (error instanceof MaxHeaderSizeExceededError)
    return new DomainError('0022', 'a multipart part header is too large');
  return new DomainError('0022', `the multipart/form-data body is malformed: ${(error as Error).message}`);
}

/** Whose upload it is: an operator's for a branch, or a customer's. */
export type UploadOwner = { branchId: number } | { customerId: number };

/**
 * Takes the upload of a request: reads its file part, puts the bytes into the object store under the
 * tenant's prefix (L303 when the store fails: retry) and adds the file's row to the request's unit of work.
 */
export async function receiveUpload(ctx: RouteContext, owner: UploadOwner): Promise<StoredFile> {
  const part = await readFilePart(ctx.request);
  const contentType = uploadContentType(part.headers['content-type']);
  const fileName = uploadFileName(part.filename);
  const bytes = part.bytes;
  if (bytes.byteLength === 0) throw new DomainError('0022', 'the file is empty');
  const uuid = randomUUID();
  const objectKey = objectKeyOf(ctx.tenant, uuid);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  try {
    await ctx.services.objectStore.put(objectKey, bytes, { contentType, sha256Hex: sha256 });
  } catch (error) {
    throw new DomainError('L303', 'the file could not be stored; try again', undefined, { cause: error });
  }
  return ctx.em.create(StoredFile, {
    uuid,
    branchId: 'branchId' in owner ? owner.branchId : null,
    customerId: 'customerId' in owner ? owner.customerId : null,
    uploadedBy: ctx.actor,
    fileName,
    contentType,
    size: bytes.byteLength,
    sha256,
    objectKey,
  });
}

/** Who asks for a file: an operator (or API client) of the operator interface, or a signed-in customer. */
export type FileCaller = { operator: true } | { customerId: number };

/**
 * The file a caller may download: its uploader, or whoever may see an entity it is linked to — operators
 * through the entity's read permission on its branch, customers through entities that are theirs.
 * L404 for an unknown uuid; A103/A105-A108 with the sub-code (403 operator, 404 customer) otherwise.
 */
export async function downloadableFile(
  ctx: RouteContext,
  uuid: string,
  caller: FileCaller,
): Promise<StoredFile> {
  const found = await fileWithLinks(ctx.em, uuid);
  if (!found) throw new DomainError('L404', `no file ${uuid}`);
  const { file, links } = found;
  if ('customerId' in caller) {
    if (file.customerId === caller.customerId || links.some((link) => link.customerId === caller.customerId))
      return file;
    throw fileAccessDenied(types(links), 'customer');
  }
  if (file.customerId == null && file.uploadedBy === ctx.actor) return file;
  for (const link of links) {
    if (link.branchId == null) continue;
    if (await ctx.holds({ permission: readPermissionOf[link.entityType], branchId: link.branchId }))
      return file;
  }
  throw fileAccessDenied(types(links), 'operator');
}

const types = (links: readonly FileLink[]) => links.map((link) => link.entityType);

/** A pre-signed download address of a file, offered under its name and type, and when it stops working. */
export async function presignedDownload(
  ctx: RouteContext,
  file: StoredFile,
): Promise<{ url: string; expiresAt: Date }> {
  const ttl = ctx.services.fileLinkTtlSeconds;
  const url = await ctx.services.objectStore
    .presignedGetUrl(file.objectKey, {
      expiresInSeconds: ttl,
      contentDisposition: contentDisposition(file.fileName),
      contentType: file.contentType,
    })
    .catch((error: unknown) => {
      throw new DomainError('L303', 'no download link could be made; try again', undefined, { cause: error });
    });
  return { url, expiresAt: new Date(Date.now() + ttl * 1000) };
}
