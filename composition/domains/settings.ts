import { Setting } from '../../db/entities/Setting.js';
import { appSettingRoutes } from '../../api/routes/front/settings.js';
import { defineDomain } from './domain.js';

/** Tenant and branch settings, resolved along the branch tree. */
export const settingDomain = defineDomain({
  name: 'settings',
  entities: [Setting],
  permissions: { operational: ['SETTINGS_READ'] },
  routes: appSettingRoutes,
});
