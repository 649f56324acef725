// Voucherable (benefit template) reads and the checks of a whole configuration that need the database:
// codes free across every kind of code customers type (VA106), annotations that exist in the template's
// business unit (VA113), a referrer template of the same unit (VA100); the pure rules are
// domain/voucherables.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Annotation } from './entities/Annotation.js';
import { Reward } from './entities/Reward.js';
import { Voucher } from './entities/Voucher.js';
import { VoucherCode } from './entities/VoucherCode.js';
import { Voucherable } from './entities/Voucherable.js';
import { DomainError, type ErrorCode } from '../domain/errors.js';
import { voucherableProblem, type VoucherableConfig } from '../domain/voucherables.js';

/** A template by id (not deleted); VA100 when there is none in the tenant. */
export async function voucherableOrFail(em: EntityManager, id: number): Promise<Voucherable> {
  const template = await em.findOne(Voucherable, { id, deletedAt: null });
  if (!template) throw new DomainError('VA100', `voucherable ${id} not found`);
  return template;
}

/** A template by its code, case ignored (not deleted); VA100 when there is none. */
export async function voucherableByCodeOrFail(em: EntityManager, code: string): Promise<Voucherable> {
  const template = await em.findOne(Voucherable, {
    code: { $ilike: escapeLike(code) },
    deletedAt: null,
  });
  if (!template) throw new DomainError('VA100', `no voucherable with code ${code}`);
  return template;
}

/** A LIKE pattern matching exactly the text (its wildcards escaped). */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * Whether a code is taken by any kind of code a customer may type: a template's, a redeemable code, a
 * single-use constraint code or a reward (case ignored). `except` names the row being updated.
 */
export async function codeTaken(
  em: EntityManager,
  code: string,
  except: { voucherableId?: number } = {},
): Promise<boolean> {
  const pattern = escapeLike(code);
  const [template, redeemable, constraint, reward] = await Promise.all([
    em.findOne(
      Voucherable,
      { code: { $ilike: pattern }, deletedAt: null, id: { $ne: except.voucherableId ?? 0 } },
      { fields: ['id'] },
    ),
    em.findOne(VoucherCode, { code: { $ilike: pattern } }, { fields: ['id'] }),
    em.findOne(Voucher, { code: { $ilike: pattern } }, { fields: ['id'] }),
    em.findOne(Reward, { code: { $ilike: pattern } }, { fields: ['id'] }),
  ]);
  return Boolean(template ?? redeemable ?? constraint ?? reward);
}

/** Refuses a code already taken with the caller's code (VA106 for templates, T103 codes, RW100 rewards). */
export async function assertCodeFree(
  em: EntityManager,
  code: string | null | undefined,
  refusal: Extract<ErrorCode, 'VA106' | 'T103' | 'RW100'>,
  except: { voucherableId?: number } = {},
): Promise<void> {
  if (code && (await codeTaken(em, code, except)))
    throw new DomainError(refusal, `the code ${code} is taken`);
}

/**
 * Checks a whole configuration of a template of a business unit: the pure rules (VA101–VA120, T113–T116),
 * then every annotation it names exists in the unit (VA113) and its referrer template is one of the
 * unit's (VA100). Throws the first problem.
 */
export async function assertVoucherableConfig(
  em: EntityManager,
  config: VoucherableConfig,
  businessUnitId: number,
  now: Date,
): Promise<void> {
  const problem = voucherableProblem(config, now);
  if (problem) throw new DomainError(problem.code, problem.message);
  const named = [
    ...config.guserRequiredAnnotationIds,
    ...config.guserProhibitedAnnotationIds,
    ...config.requiredAnnotationIds,
    ...config.prohibitedAnnotationIds,
  ];
  if (named.length > 0) {
    const found = await em.find(Annotation, { id: { $in: named }, businessUnitId }, { fields: ['id'] });
    const known = new Set(found.map((annotation) => annotation.id));
    const missing = [...new Set(named)].filter((id) => !known.has(id));
    if (missing.length > 0)
      throw new DomainError('VA113', `annotations ${missing.join(', ')} not found in the business unit`);
  }
  if (config.referrerVoucherableId != null) {
    const referrer = await em.findOne(Voucherable, {
      id: config.referrerVoucherableId,
      businessUnitId,
      deletedAt: null,
    });
    if (!referrer)
      throw new DomainError(
        'VA100',
        `referrer voucherable ${config.referrerVoucherableId} not found in the business unit`,
      );
  }
}
