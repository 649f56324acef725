import { LocalizedMessage } from '../../db/entities/LocalizedMessage.js';
import { Migration20261125062328_messages } from '../../db/migrations/Migration20261125062328_messages.js';
import { messageRoutes } from '../../api/routes/back/messages.js';
import { appMessageRoutes } from '../../api/routes/front/messages.js';
import { messageErrors } from '../../domain/messages.errors.js';
import { messageSeed } from '../../db/seed/messages.js';
import { defineDomain } from './domain.js';

/**
 * The localized texts of the tenant's apps: operators manage them by key and language, apps resolve keys
 * through the fallback chain of their language (`de-CH` → `de` → the tenant's default language).
 */
export const messageDomain = defineDomain({
  name: 'messages',
  errors: messageErrors,
  seed: messageSeed,
  entities: [LocalizedMessage],
  migrations: [Migration20261125062328_messages],
  permissions: { operational: ['MESSAGES_READ', 'MESSAGES_MANAGE'] },
  routes: [...messageRoutes, ...appMessageRoutes],
});
