import type { Migration } from '@mikro-orm/migrations';
import type { Constructor } from '@mikro-orm/core';
import { Migration20261121050909_initial } from './Migration20261121050909_initial.js';
import { Migration20261122103242_geography } from './Migration20261122103242_geography.js';
import { Migration20261122103719_pricing } from './Migration20261122103719_pricing.js';
import { Migration20261122104722_fleet } from './Migration20261122104722_fleet.js';
import { Migration20261122105400_customers } from './Migration20261122105400_customers.js';
import { Migration20261122121500_customer_search } from './Migration20261122121500_customer_search.js';
import { Migration20261122133618_rentals } from './Migration20261122133618_rentals.js';
import { Migration20261122134203_rental_billing } from './Migration20261122134203_rental_billing.js';
import { Migration20261122134223_rental_authority } from './Migration20261122134223_rental_authority.js';
import { Migration20261122142816_rental_billing_links } from './Migration20261122142816_rental_billing_links.js';
import { Migration20261122164150_bookings } from './Migration20261122164150_bookings.js';
import { Migration20261122164234_damages } from './Migration20261122164234_damages.js';
import { Migration20261122165020_booking_lifecycle } from './Migration20261122165020_booking_lifecycle.js';
import { Migration20261122165215_signing_key_rotation } from './Migration20261122165215_signing_key_rotation.js';

/** Migrations in order; listed explicitly so every runtime (tsx, jest, bundlers) loads the same set. */
export const migrationsList: { name: string; class: Constructor<Migration> }[] = [
  { name: 'Migration20261121050909_initial', class: Migration20261121050909_initial },
  { name: 'Migration20261122103242_geography', class: Migration20261122103242_geography },
  { name: 'Migration20261122103719_pricing', class: Migration20261122103719_pricing },
  { name: 'Migration20261122104722_fleet', class: Migration20261122104722_fleet },
  { name: 'Migration20261122105400_customers', class: Migration20261122105400_customers },
  { name: 'Migration20261122121500_customer_search', class: Migration20261122121500_customer_search },
  { name: 'Migration20261122133618_rentals', class: Migration20261122133618_rentals },
  { name: 'Migration20261122134203_rental_billing', class: Migration20261122134203_rental_billing },
  { name: 'Migration20261122134223_rental_authority', class: Migration20261122134223_rental_authority },
  { name: 'Migration20261122142816_rental_billing_links', class: Migration20261122142816_rental_billing_links },
  { name: 'Migration20261122164150_bookings', class: Migration20261122164150_bookings },
  { name: 'Migration20261122164234_damages', class: Migration20261122164234_damages },
  { name: 'Migration20261122165020_booking_lifecycle', class: Migration20261122165020_booking_lifecycle },
  { name: 'Migration20261122165215_signing_key_rotation', class: Migration20261122165215_signing_key_rotation },
];
