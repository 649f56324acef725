// The finance domain's workflow module (a domain registers one): payments and refunds.
export { paymentWorkflow } from './payment.js';
export { refundWorkflow } from './refund.js';
