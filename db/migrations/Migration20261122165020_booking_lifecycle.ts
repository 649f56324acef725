import { Migration } from '@mikro-orm/migrations';

// Events name the booking they are about (BOOKING_* events and the events of a booking's rental), so
// `GET /BOOKINGS/{bookingId}/events` reads a booking's timeline by index.
export class Migration20261122165020_booking_lifecycle extends Migration {
  override name = 'Migration20261122165020_booking_lifecycle';

  override up(): void | Promise<void> {
    this.addSql(`alter table "event" add "booking_id" int null;`);
    this.addSql(`create index "event_tenant_id_booking_id_index" on "event" ("tenant_id", "booking_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "event_tenant_id_booking_id_index";`);
    this.addSql(`alter table "event" drop column "booking_id";`);
  }
}
