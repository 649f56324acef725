// The publication of a pricing version: publish now, apply at the effective date (the previous published
// version becomes SUPERSEDED), expire at the end of its validity. Timers, not a cron job.
import {
  type ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { createPricingActivities } from '../activities/pricing.js';
import {
  awaitPublicationUpdate,
  pricingVersionStatusQuery,
  type PricingVersionWorkflowInput,
  type PricingVersionWorkflowSnapshot,
} from './pricing.messages.js';
import { EntityStateKey } from './search-attributes.js';
import { codedFailure } from './failures.js';

type PricingActivities = ReturnType<typeof createPricingActivities>;

const activities = proxyActivities<PricingActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** One version's publication from the publish request to the end of its validity. */
export async function pricingVersionWorkflow(
  input: PricingVersionWorkflowInput,
): Promise<PricingVersionWorkflowSnapshot> {
  const snapshot: PricingVersionWorkflowSnapshot = { versionId: input.versionId, stage: 'PUBLISHING' };
  let refusal: ApplicationFailure | undefined;
  let answered = false;
  const stage = (next: PricingVersionWorkflowSnapshot['stage']) => {
    snapshot.stage = next;
    upsertSearchAttributes([{ key: EntityStateKey, value: next }]);
  };
  setHandler(pricingVersionStatusQuery, () => ({ ...snapshot }));
  setHandler(awaitPublicationUpdate, async () => {
    await condition(() => snapshot.stage !== 'PUBLISHING');
    answered = true;
    if (refusal) throw refusal;
    return { ...snapshot };
  });

  const common = { tenant: input.tenant, versionId: input.versionId };
  try {
    snapshot.status = (await activities.publishPricingVersion(input)).status;
  } catch (error) {
    refusal = codedFailure(error, '0099', 'publication failed');
    stage('REFUSED');
    // The publish endpoint sends its update right after the start: wait for it so it gets the refusal.
    await condition(() => answered, '1 minute');
    await condition(allHandlersFinished);
    return { ...snapshot };
  }
  stage('SCHEDULED');

  await sleep(Math.max(0, Date.parse(input.effectiveFrom) - Date.now()));
  snapshot.status = (await activities.applyPricingVersion(common)).status;
  stage('APPLIED');

  if (input.validUntil !== null && snapshot.status === 'PUBLISHED') {
    await sleep(Math.max(0, Date.parse(input.validUntil) - Date.now()));
    snapshot.status = (await activities.expirePricingVersion(common)).status;
  }
  stage('ENDED');
  await condition(allHandlersFinished);
  return { ...snapshot };
}
