import { Setting } from '../../db/entities/Setting.js';
import { appSettingRoutes } from '../../api/routes/front/settings.js';
import { settingErrors } from '../../domain/settings.errors.js';
import { settingSeed } from '../../db/seed/settings.js';
import { defineDomain } from './domain.js';

/** Tenant and branch settings, resolved along the branch tree. */
export const settingDomain = defineDomain({
  name: 'settings',
  errors: settingErrors,
  seed: settingSeed,
  entities: [Setting],
  permissions: { operational: ['SETTINGS_READ'] },
  routes: appSettingRoutes,
});
