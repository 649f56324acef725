// The benefits domain's workflow module (a domain registers one): user subscriptions and the voucher
// state keeper.
export { subscriptionWorkflow } from './subscription.js';
export { voucherStatesWorkflow } from './voucher-states.js';
