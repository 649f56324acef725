// Damage rules (pure: no I/O, no Node built-ins). A damage is a defect found on a vehicle; operators
// triage it (severity, approval), repair it or ignore it. See docs/damages.md.

/** The spec's damage severities, least to most severe. */
export const damageSeverities = ['MINOR', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type DamageSeverity = (typeof damageSeverities)[number];

/** The spec's damage states. */
export const damageStates = ['NEW', 'APPROVED', 'UNDER_REPAIR', 'REPAIRED', 'IGNORED'] as const;
export type DamageState = (typeof damageStates)[number];

/** States of a damage that still needs work: counted as open damage in overviews and KPIs. */
export const openDamageStates: readonly DamageState[] = ['NEW', 'APPROVED', 'UNDER_REPAIR'];

/** Where on the vehicle the damaged part is (the spec's "part" names it; this locates it). */
export const damageLocations = [
  'FRONT',
  'REAR',
  'LEFT',
  'RIGHT',
  'TOP',
  'UNDERSIDE',
  'INTERIOR',
  'OTHER',
] as const;
export type DamageLocation = (typeof damageLocations)[number];

/**
 * The allowed state moves (the spec shows none beyond "severity before approval"): triage approves or
 * ignores a new damage, an approved one goes to repair (or is repaired on the spot, or ignored), a
 * repair may be paused back to APPROVED, and an ignored damage may be reopened. REPAIRED is final: a
 * defect that comes back is a new damage.
 */
export const damageTransitions: Readonly<Record<DamageState, readonly DamageState[]>> = {
  NEW: ['APPROVED', 'IGNORED'],
  APPROVED: ['UNDER_REPAIR', 'REPAIRED', 'IGNORED'],
  UNDER_REPAIR: ['REPAIRED', 'APPROVED'],
  REPAIRED: [],
  IGNORED: ['NEW'],
};

/** Whether a damage in this state still needs work. */
export const isOpenDamage = (state: DamageState): boolean => openDamageStates.includes(state);

/** Why a damage may not move from `from` to `to` (DM100), or undefined when it may. */
export function damageTransitionRefusal(from: DamageState, to: DamageState): string | undefined {
  if (from === to) return undefined;
  return damageTransitions[from].includes(to)
    ? undefined
    : `a ${from} damage cannot become ${to} (allowed: ${damageTransitions[from].join(', ') || 'none'})`;
}

/**
 * Why a damage with this severity may not be in (or move to) `state` (DM101): severity must be set
 * before approval and stays set from then on, so every approved, repaired or in-repair damage has one.
 */
export function damageSeverityRefusal(
  state: DamageState,
  severity: DamageSeverity | null | undefined,
): string | undefined {
  if (severity) return undefined;
  return state === 'NEW' || state === 'IGNORED'
    ? undefined
    : `a damage needs a severity before it is ${state} (and keeps it from then on)`;
}

/** Whether fields other than the state may still change: not once the damage is REPAIRED or IGNORED. */
export const damageEditable = (state: DamageState): boolean => isOpenDamage(state);

/** The event type of a state move, e.g. DAMAGE_STATE_APPROVED. */
export const damageStateEventType = (state: DamageState): string => `DAMAGE_STATE_${state}`;

/** The rank of a severity (MINOR 0 … CRITICAL 3), for "highest severity" overviews. */
export const severityRank = (severity: DamageSeverity): number => damageSeverities.indexOf(severity);
