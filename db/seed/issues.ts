// Demo and test data of the issues domain: a damaged-vehicle issue on the tenant's first vehicle, linked
// to its untriaged critical damage, with two comments. The issue and its first comment go on the seed
// board, so the files domain's seed can attach a photo to that comment.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Damage } from '../entities/Damage.js';
import { Issue } from '../entities/Issue.js';
import { IssueComment } from '../entities/IssueComment.js';
import { Vehicle } from '../entities/Vehicle.js';
import { demoOperatorClient } from './access.js';
import type { DomainSeed, SeedBoard } from './board.js';

declare module './board.js' {
  interface SeedBoard {
    /** The demo issue (DAMAGED_VEHICLE, IN_REPAIR) and its first comment, written by the demo operator. */
    demoIssue?: Issue;
    demoIssueComment?: IssueComment;
  }
}

/** The subject the demo operator client acts as (the author of the first comment). */
export const demoOperatorSubject = `client:${demoOperatorClient.clientId}`;

/** The issue with its damage link and two comments; runs after the flush, once vehicles and damages exist. */
export async function seedIssues(tx: EntityManager, board: SeedBoard): Promise<void> {
  const tenant = board.tenantId;
  await tx.flush();
  const vehicle = await tx.findOne(Vehicle, { tenant }, { filters: false, orderBy: { id: 'asc' } });
  if (!vehicle) return;
  const damage = await tx.findOne(
    Damage,
    { tenant, vehicleId: vehicle.id, severity: 'CRITICAL' },
    { filters: false, orderBy: { id: 'asc' } },
  );
  const issue = tx.create(Issue, {
    tenant,
    branchId: vehicle.branch.id,
    // The vehicle stays FUNCTIONAL and rentable (the journeys ride it): the story says so.
    title: `Front brake cable worn on ${vehicle.code}`,
    description:
      'Reported during a check: the front brake lever travels further than it should. Still within limits, so the vehicle stays in service until the cable is replaced.',
    category: 'DAMAGED_VEHICLE',
    state: 'IN_REPAIR',
    vehicleId: vehicle.id,
    createdBy: demoOperatorSubject,
    assignedTo: 'seed-crew',
    assignedToName: 'Field Crew',
  });
  const first = tx.create(IssueComment, {
    tenant,
    issue,
    authorUserAuthId: demoOperatorSubject,
    text: 'Brake cable frayed at the lever; photo attached.',
    createdAt: new Date(Date.now() - 3600_000),
  });
  tx.create(IssueComment, {
    tenant,
    issue,
    authorUserAuthId: 'seed-crew',
    text: 'New cable ordered, repair planned for tomorrow.',
  });
  await tx.flush();
  if (damage) damage.issueId = issue.id;
  Object.assign(board, { demoIssue: issue, demoIssueComment: first });
}

/** The demo issue, once the vehicles and damages exist (after the flush). */
export const issueSeed: DomainSeed = {
  afterFlush: seedIssues,
};
