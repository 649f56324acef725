// Demo and test data of the files domain: one photo, a small PNG drawn here, put into the object store
// and linked to the demo issue's first comment (the issues domain's seed runs before this one), or to
// the tenant's first damage when there is no such comment. Without an object store nothing is seeded.
import { createHash, randomUUID } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { EntityManager } from '@mikro-orm/postgresql';
import { objectKeyOf } from '../../domain/files.js';
import { Damage } from '../entities/Damage.js';
import { FileLink } from '../entities/FileLink.js';
import { StoredFile } from '../entities/StoredFile.js';
import type { DomainSeed, SeedBoard } from './board.js';
import { demoOperatorSubject } from './issues.js';

declare module './board.js' {
  interface SeedBoard {
    /** The demo photo, once stored and linked. */
    demoPhoto?: StoredFile;
  }
}

/** One PNG chunk: length, type, data and the CRC over type and data. */
function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/**
 * A real 96×64 RGB PNG: a grey road under a blue sky with a red brake lever, enough for an image viewer
 * to show something recognisable for the demo issue's photo.
 */
export function demoPhotoPng(width = 96, height = 64): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0 (None), then RGB pixels
    for (let x = 0; x < width; x++) {
      const sky = y < height / 2;
      const lever = x > width * 0.35 && x < width * 0.65 && Math.abs(y - height * 0.55) < 4;
      const [r, g, b] = lever ? [200, 30, 30] : sky ? [110, 160, 230 - y] : [90 + (x % 8), 90, 95];
      row.set([r, g, b], 1 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, RGB, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Stores the demo photo and links it to the demo issue's comment (else the first damage). */
export async function seedFiles(tx: EntityManager, board: SeedBoard): Promise<void> {
  const store = board.objectStore;
  if (!store) return;
  const tenant = board.tenantId;
  const comment = board.demoIssueComment;
  const damage = comment
    ? undefined
    : await tx.findOne(Damage, { tenant }, { filters: false, orderBy: { id: 'asc' } });
  const target = comment
    ? {
        entityType: 'COMMENT' as const,
        entityId: String(comment.id),
        branchId: board.demoIssue?.branchId ?? null,
        customerId: board.demoIssue?.customerId ?? null,
      }
    : damage
      ? {
          entityType: 'DAMAGE' as const,
          entityId: String(damage.id),
          branchId: damage.branchId,
          customerId: null,
        }
      : undefined;
  if (!target) return;
  const bytes = demoPhotoPng();
  const uuid = randomUUID();
  const objectKey = objectKeyOf(tenant, uuid);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  await store.put(objectKey, bytes, { contentType: 'image/png', sha256Hex: sha256 });
  const photo = tx.create(StoredFile, {
    tenant,
    uuid,
    branchId: target.branchId,
    uploadedBy: demoOperatorSubject,
    fileName: 'brake-lever.png',
    contentType: 'image/png',
    size: bytes.byteLength,
    sha256,
    objectKey,
  });
  tx.create(FileLink, {
    tenant,
    file: photo,
    entityType: target.entityType,
    entityId: target.entityId,
    branchId: target.branchId,
    customerId: target.customerId,
    linkedBy: demoOperatorSubject,
  });
  await tx.flush();
  Object.assign(board, { demoPhoto: photo });
}

/** The demo photo, once the issues and damages exist (after the flush). */
export const fileSeed: DomainSeed = {
  afterFlush: seedFiles,
};
