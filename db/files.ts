// The files domain's queries and writes: linking uploaded files to entities (the API other domains call:
// tasks, damages, rentals, issue comments), the files of entities for their representations, and the
// access rule of a download. Uploads and the object store itself are the routes' and platform's.
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../domain/errors.js';
import { fileEntityTypes, type FileEntityType } from '../domain/files.js';
import { FileLink } from './entities/FileLink.js';
import { StoredFile } from './entities/StoredFile.js';

export type { FileEntityType };

/** Who may see the linked entity: its branch (operators) and the customer it belongs to (the app). */
export interface FileLinkScope {
  branchId: number | null;
  customerId?: number | null;
}

/** What `linkFiles` links: files (by uuid) to one entity. */
export interface LinkFilesInput {
  entityType: FileEntityType;
  /** The entity's id (stored as text). */
  entityId: number | string;
  /** uuids of files uploaded before (POST /files); each linked once (L407), unknown ones L404. */
  fileUuids: readonly string[];
  /** The acting subject (`ctx.actor`). */
  linkedBy: string;
  /** Who may see the entity, checked at download. */
  scope: FileLinkScope;
  /** A customer linking: every file must be one this customer uploaded (others answer L404). */
  ownedBy?: number;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The files of the tenant with these uuids, or L404 naming the first one missing (or not `ownedBy`'s). */
export async function findFilesOrFail(
  em: EntityManager,
  uuids: readonly string[],
  ownedBy?: number,
): Promise<StoredFile[]> {
  const wanted = uuids.map((uuid) => uuid.toLowerCase());
  const malformed = wanted.find((uuid) => !uuidPattern.test(uuid));
  if (malformed !== undefined) throw new DomainError('L404', `no file ${JSON.stringify(malformed)}`);
  const found = wanted.length ? await em.find(StoredFile, { uuid: { $in: wanted } }) : [];
  const byUuid = new Map(found.map((file) => [file.uuid, file]));
  for (const uuid of wanted) {
    const file = byUuid.get(uuid);
    if (!file || (ownedBy !== undefined && file.customerId !== ownedBy))
      throw new DomainError('L404', `no file ${uuid}${ownedBy !== undefined ? ' uploaded by you' : ''}`);
  }
  return wanted.map((uuid) => byUuid.get(uuid)!);
}

/**
 * Links uploaded files to an entity: L404 for a uuid not in the tenant (or not the `ownedBy` customer's),
 * L407 for a file already linked to it or named twice, L408 for an entity type files cannot link to.
 * The links are persisted, not flushed: the caller's unit of work (the route kernel) flushes them, and
 * the unique constraint (file, entityType, entityId) keeps a concurrent second link out.
 */
export async function linkFiles(em: EntityManager, input: LinkFilesInput): Promise<FileLink[]> {
  if (!fileEntityTypes.includes(input.entityType))
    throw new DomainError('L408', `files cannot be linked to ${String(input.entityType)}`);
  const uuids = input.fileUuids.map((uuid) => uuid.toLowerCase());
  const twice = uuids.find((uuid, index) => uuids.indexOf(uuid) !== index);
  if (twice !== undefined) throw new DomainError('L407', `file ${twice} is named twice`);
  const files = await findFilesOrFail(em, uuids, input.ownedBy);
  if (!files.length) return [];
  const entityId = String(input.entityId);
  const existing = await em.find(FileLink, {
    entityType: input.entityType,
    entityId,
    file: { $in: files.map((file) => file.id) },
  });
  const already = existing[0];
  if (already) {
    const file = files.find((candidate) => candidate.id === already.file.id)!;
    throw new DomainError('L407', `file ${file.uuid} is already linked to ${input.entityType} ${entityId}`);
  }
  return files.map((file) =>
    em.create(FileLink, {
      file,
      entityType: input.entityType,
      entityId,
      branchId: input.scope.branchId,
      customerId: input.scope.customerId ?? null,
      linkedBy: input.linkedBy,
    }),
  );
}

/**
 * Makes an entity's links exactly `fileUuids` (a task's or damage's `files` on update): links the new
 * ones (L404 for unknown uuids, L407 for one named twice), removes the ones left out.
 */
export async function setLinkedFiles(em: EntityManager, input: LinkFilesInput): Promise<void> {
  const uuids = input.fileUuids.map((uuid) => uuid.toLowerCase());
  const twice = uuids.find((uuid, index) => uuids.indexOf(uuid) !== index);
  if (twice !== undefined) throw new DomainError('L407', `file ${twice} is named twice`);
  await findFilesOrFail(em, uuids, input.ownedBy);
  const entityId = String(input.entityId);
  const current = await em.find(FileLink, { entityType: input.entityType, entityId }, { populate: ['file'] });
  const kept = new Set<string>();
  for (const link of current) {
    if (uuids.includes(link.file.uuid)) kept.add(link.file.uuid);
    else em.remove(link);
  }
  await linkFiles(em, { ...input, fileUuids: uuids.filter((uuid) => !kept.has(uuid)) });
}

/** A linked file as representations show it. */
export interface FileReference {
  uuid: string;
  fileName: string;
  contentType: string;
  size: number;
  createdAt: string;
}

/** The representation of one file. */
export function fileReference(file: StoredFile): FileReference {
  return {
    uuid: file.uuid,
    fileName: file.fileName,
    contentType: file.contentType,
    size: file.size,
    createdAt: file.createdAt.toISOString(),
  };
}

/** The files linked to each of these entities (in link order), keyed by the entity id as text. */
export async function filesLinkedTo(
  em: EntityManager,
  entityType: FileEntityType,
  entityIds: readonly (number | string)[],
): Promise<Map<string, FileReference[]>> {
  const result = new Map<string, FileReference[]>();
  if (!entityIds.length) return result;
  const links = await em.find(
    FileLink,
    { entityType, entityId: { $in: [...new Set(entityIds.map(String))] } },
    { populate: ['file'], orderBy: { id: 'asc' } },
  );
  for (const link of links) {
    const list = result.get(link.entityId) ?? [];
    list.push(fileReference(link.file));
    result.set(link.entityId, list);
  }
  return result;
}

/** Removes every link of an entity (when the entity itself is deleted); the files stay. */
export async function unlinkAllFiles(
  em: EntityManager,
  entityType: FileEntityType,
  entityId: number | string,
): Promise<void> {
  await em.nativeDelete(FileLink, { entityType, entityId: String(entityId) });
}

/** A file and every link it has, for a download's access check; undefined when the tenant has no such file. */
export async function fileWithLinks(
  em: EntityManager,
  uuid: string,
): Promise<{ file: StoredFile; links: FileLink[] } | undefined> {
  if (!uuidPattern.test(uuid)) return undefined;
  const file = await em.findOne(StoredFile, { uuid: uuid.toLowerCase() });
  if (!file) return undefined;
  const links = await em.find(FileLink, { file }, { orderBy: { id: 'asc' } });
  return { file, links };
}
