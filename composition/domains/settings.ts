import { Setting } from '../../db/entities/Setting.js';
import { appSettingRoutes } from '../../api/routes/front/settings.js';
import { operatorSettingRoutes } from '../../api/routes/back/settings.js';
import { settingManagementRoutes } from '../../api/routes/back/settings-management.js';
import { settingErrors } from '../../domain/settings.errors.js';
import { settingSeed } from '../../db/seed/settings.js';
import { defineDomain } from './domain.js';

/**
 * Tenant and branch settings, resolved along the branch tree: the app's and the operators' effective
 * values, and their management against the registry of known keys (domain/settings.ts).
 */
export const settingDomain = defineDomain({
  name: 'settings',
  errors: settingErrors,
  seed: settingSeed,
  entities: [Setting],
  permissions: { operational: ['SETTINGS_READ', 'SETTINGS_MANAGE'] },
  routes: [...appSettingRoutes, ...operatorSettingRoutes, ...settingManagementRoutes],
});
