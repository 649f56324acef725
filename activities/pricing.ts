import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { inTenantTransaction } from '../db/orm.js';
import { PricingBundle } from '../db/entities/PricingBundle.js';
import { PricingBundleVersion } from '../db/entities/PricingBundleVersion.js';
import { recordEvent } from '../db/events.js';
import { DomainError } from '../domain/errors.js';
import { publicationRefusal } from '../domain/pricing-versions.js';
import type { PricingVersionStatus } from '../domain/pricing.js';
import type { PricingVersionWorkflowInput } from '../workflows/pricing.messages.js';
import { activityIdempotencyKey, asActivity } from './support.js';

export interface PricingActivityDeps {
  orm: MikroORM;
}

/** Locks the bundle row (publications of one bundle run one at a time) and loads the version. */
async function lockedVersion(em: EntityManager, versionId: number) {
  const version = await em.findOne(PricingBundleVersion, versionId);
  if (!version) throw new DomainError('ODP101');
  await em.findOneOrFail(PricingBundle, version.bundle.id, { lockMode: LockMode.PESSIMISTIC_WRITE });
  await em.refresh(version);
  return version;
}

/** Activities of the publication workflow: each moves version statuses in one transaction, idempotently. */
export function createPricingActivities({ orm }: PricingActivityDeps) {
  return {
    /** DRAFT → PUBLISHED with its effective date; a repeat of the same publication answers the same. */
    async publishPricingVersion(
      input: PricingVersionWorkflowInput,
    ): Promise<{ status: PricingVersionStatus }> {
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          const version = await lockedVersion(em, input.versionId);
          const effectiveFrom = new Date(input.effectiveFrom);
          if (version.status === 'PUBLISHED' && version.effectiveFrom?.getTime() === effectiveFrom.getTime())
            return { status: version.status };
          const others = await em.find(PricingBundleVersion, {
            bundle: version.bundle.id,
            status: 'PUBLISHED',
            id: { $ne: version.id },
          });
          const bundle = await em.findOneOrFail(PricingBundle, version.bundle.id);
          const refused = publicationRefusal({
            bundleArchived: Boolean(bundle.archivedAt),
            status: version.status,
            effectiveFromMs: effectiveFrom.getTime(),
            validUntilMs: input.validUntil ? Date.parse(input.validUntil) : null,
            nowMs: Date.now(),
            publishedEffectiveFromMs: others.map((other) => other.effectiveFrom?.getTime() ?? 0),
          });
          if (refused) throw refused;
          version.status = 'PUBLISHED';
          version.effectiveFrom = effectiveFrom;
          version.validUntil = input.validUntil ? new Date(input.validUntil) : null;
          version.publishedAt = new Date();
          version.publishedBy = input.requestedBy;
          recordEvent(em, {
            type: 'PRICING_VERSION_PUBLISHED',
            adminSubject: input.requestedBy,
            description: `${bundle.name} v${version.version} published, effective ${input.effectiveFrom}`,
            payload: { ...input, pricingBundleVersionId: version.id },
            idempotencyKey: activityIdempotencyKey(),
          });
          return { status: version.status };
        }),
      );
    },

    /** At the effective date: the bundle's earlier published versions become SUPERSEDED. */
    async applyPricingVersion(input: {
      tenant: string;
      versionId: number;
    }): Promise<{ status: PricingVersionStatus }> {
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          const version = await lockedVersion(em, input.versionId);
          if (version.status !== 'PUBLISHED' || !version.effectiveFrom) return { status: version.status };
          const earlier = await em.find(PricingBundleVersion, {
            bundle: version.bundle.id,
            status: 'PUBLISHED',
            effectiveFrom: { $lt: version.effectiveFrom },
          });
          for (const previous of earlier) {
            previous.status = 'SUPERSEDED';
            previous.endedAt = version.effectiveFrom;
          }
          recordEvent(em, {
            type: 'PRICING_VERSION_APPLIED',
            adminSubject: 'pricing-version-workflow',
            description: `version ${version.version} applies; superseded: ${earlier.map((v) => v.version).join(', ') || 'none'}`,
            payload: {
              pricingBundleId: version.bundle.id,
              pricingBundleVersionId: version.id,
              superseded: earlier.map((v) => v.id),
            },
            idempotencyKey: activityIdempotencyKey(),
          });
          return { status: version.status };
        }),
      );
    },

    /** At the end of its validity a still-published version becomes EXPIRED (no version applies after it). */
    async expirePricingVersion(input: {
      tenant: string;
      versionId: number;
    }): Promise<{ status: PricingVersionStatus }> {
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          const version = await lockedVersion(em, input.versionId);
          if (version.status !== 'PUBLISHED') return { status: version.status };
          version.status = 'EXPIRED';
          version.endedAt = version.validUntil ?? new Date();
          recordEvent(em, {
            type: 'PRICING_VERSION_EXPIRED',
            adminSubject: 'pricing-version-workflow',
            payload: { pricingBundleId: version.bundle.id, pricingBundleVersionId: version.id },
            idempotencyKey: activityIdempotencyKey(),
          });
          return { status: version.status };
        }),
      );
    },
  };
}
