// Rules of the files domain (pure): what an upload may be, what files link to, who may download a
// linked file and which access code answers when nobody may, and how objects are named in the store.
import { DomainError } from './errors.js';

/** Largest file an upload may carry: 2 MiB (the spec's "at most 2 MB", L405). */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;

/** What a file can be linked to (FileLink.entityType). */
export const fileEntityTypes = ['TASK', 'DAMAGE', 'ISSUE', 'COMMENT', 'RENTAL', 'VEHICLE', 'USER'] as const;
export type FileEntityType = (typeof fileEntityTypes)[number];

/** Files may be linked to a rental until this long after it ended (the spec's Limits, point 3). */
export const RENTAL_FILE_LINK_WINDOW_MS = 60 * 60 * 1000;

/** Default lifetime of a pre-signed download link (FILE_LINK_TTL_SECONDS overrides it). */
export const DEFAULT_FILE_LINK_TTL_SECONDS = 300;

/**
 * The operational permission an operator needs on a link's branch to download a file through it: the
 * read permission of the entity the file is linked to.
 */
export const readPermissionOf: Readonly<Record<FileEntityType, string>> = {
  TASK: 'TASK_READ',
  DAMAGE: 'DAMAGE_READ',
  ISSUE: 'ISSUE_READ',
  COMMENT: 'ISSUE_READ',
  RENTAL: 'RENTAL_READ',
  VEHICLE: 'VEHICLE_READ',
  USER: 'CUSTOMER_READ',
};

/** The file-access code of each entity type (A105 rental, A106 vehicle, A107 user, A108 issue; A103 else). */
const accessCodeOf: Readonly<Record<FileEntityType, 'A103' | 'A105' | 'A106' | 'A107' | 'A108'>> = {
  RENTAL: 'A105',
  VEHICLE: 'A106',
  DAMAGE: 'A106',
  USER: 'A107',
  ISSUE: 'A108',
  COMMENT: 'A108',
  TASK: 'A103',
};

/** Which denial is reported when several links refuse: the most specific entity first. */
const denialOrder: readonly FileEntityType[] = [
  'RENTAL',
  'VEHICLE',
  'DAMAGE',
  'USER',
  'ISSUE',
  'COMMENT',
  'TASK',
];

/**
 * The refusal of a download nobody allowed: the access code of the most specific entity the file is
 * linked to (A103 when it is linked to nothing), with the sub-code appended without a dot: 403 when an
 * operator lacks the permission, 404 when a customer asks for what is not theirs (A105403, A103404).
 */
export function fileAccessDenied(
  linkedTypes: readonly FileEntityType[],
  caller: 'operator' | 'customer',
): DomainError {
  const type = denialOrder.find((candidate) => linkedTypes.includes(candidate));
  const base = type ? accessCodeOf[type] : 'A103';
  const sub = caller === 'customer' ? 404 : 403;
  return new DomainError(`${base}${sub}`);
}

/**
 * Whether a rental still takes files at `now`: until one hour after it ended (`endedAt`, or when it
 * reached a terminal state without ending: a cancelled or expired reservation), always while it runs.
 */
export function rentalTakesFiles(end: Date | null | undefined, now: Date): boolean {
  return !end || now.getTime() - end.getTime() <= RENTAL_FILE_LINK_WINDOW_MS;
}

/** Whether text holds a C0 control character (NUL included) or DEL. */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * A media type as the upload's file part declares it (`type/subtype`, parameters kept), or L406 when it
 * is absent or not a media type.
 */
export function uploadContentType(declared: string | undefined): string {
  const value = declared?.trim() ?? '';
  // RFC 9110 media-type: token "/" token, then parameters; no control characters anywhere.
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;.*)?$/.test(value))
    throw new DomainError('L406', 'the file part needs a Content-Type header naming its media type');
  if (value.length > 200 || hasControlCharacter(value))
    throw new DomainError('L406', "the file part's Content-Type is not a usable media type");
  return value;
}

/**
 * A download name from the upload's file name: the last path segment, printable characters only, at most
 * 200 characters; `file` when nothing is left. NUL and other control characters are refused (0022).
 */
export function uploadFileName(declared: string | undefined): string {
  const raw = declared ?? '';
  if (hasControlCharacter(raw))
    throw new DomainError('0022', 'the file name must not contain control characters');
  const last = raw.split(/[\\/]/).pop()!.trim();
  return last.slice(0, 200) || 'file';
}

/** Where an uploaded file's bytes live in the bucket: one prefix per tenant, the file's uuid below it. */
export function objectKeyOf(tenant: string, uuid: string): string {
  return `tenants/${encodeURIComponent(tenant)}/files/${uuid}`;
}

/** A Content-Disposition value offering the file under its name (RFC 6266, with an RFC 8187 UTF-8 form). */
export function contentDisposition(
  fileName: string,
  disposition: 'attachment' | 'inline' = 'attachment',
): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const utf8 = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}
