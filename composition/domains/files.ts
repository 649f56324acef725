import { fileRoutes } from '../../api/routes/back/files.js';
import { rentalFileRoutes } from '../../api/routes/back/rental-files.js';
import { appFileRoutes } from '../../api/routes/front/files.js';
import { appRentalFileRoutes } from '../../api/routes/front/rental-files.js';
import { fileErrors } from '../../domain/files.errors.js';
import { fileSeed } from '../../db/seed/files.js';
import { StoredFile } from '../../db/entities/StoredFile.js';
import { FileLink } from '../../db/entities/FileLink.js';
import { Migration20261125033352_files } from '../../db/migrations/Migration20261125033352_files.js';
import { defineDomain } from './domain.js';

/**
 * Files in the object store: uploads (at most 2 MiB), their links to tasks, damages, issues, comments,
 * rentals, vehicles and users, and downloads through short-lived pre-signed links (docs/files.md).
 */
export const fileDomain = defineDomain({
  name: 'files',
  errors: fileErrors,
  seed: fileSeed,
  entities: [StoredFile, FileLink],
  migrations: [Migration20261125033352_files],
  permissions: { operational: ['FILE_UPLOAD'] },
  routes: [...fileRoutes, ...rentalFileRoutes, ...appFileRoutes, ...appRentalFileRoutes],
});
