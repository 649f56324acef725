import { Customer } from '../../db/entities/index.js';
import { defineDomain } from './domain.js';

/** The people who rent. */
export const customerDomain = defineDomain({
  name: 'customers',
  entities: [Customer],
  permissions: { operational: ['CUSTOMER_READ'] },
});
