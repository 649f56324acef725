// Demo and test data of the exports domain: a recurring export of the rentals report, every Monday at
// 06:00 in the city branch's time zone, over the last 7 days, mailed to the operations desk. The seed writes
// the row only; the worker's export schedule starter gives it its Temporal Schedule.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Branch } from '../entities/Branch.js';
import { DataExport } from '../entities/DataExport.js';
import { demoOperatorClient } from './access.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** The demo recurring export, owned by the demo operator client (which holds EXPORT_READ everywhere). */
export async function seedExports(tx: EntityManager, board: SeedBoard): Promise<void> {
  const tenant = board.tenantId;
  const root = fromBoard(board, 'city') as Branch;
  tx.create(DataExport, {
    tenant,
    name: 'Weekly rentals',
    queryId: 1,
    branchIds: [root.id],
    periodLastDays: 7,
    retentionDays: 31,
    cron: '0 6 * * 1',
    timezone: root.timeZoneId,
    emails: [`operations@${tenant}.fleetflow.localhost`],
    ownerSubjectType: 'API_CLIENT',
    ownerSubjectId: demoOperatorClient.clientId,
    createdBy: 'seed',
  });
}

/** The demo export, once the branches exist (after the flush). */
export const exportsSeed: DomainSeed = {
  afterFlush: (tx: EntityManager, board: SeedBoard) => seedExports(tx, board),
};
