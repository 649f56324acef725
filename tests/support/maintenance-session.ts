// The maintenance suites' common set-up: a session with a rival tenant, and a reader holding
// MAINTENANCE_READ on the demo district only.
import { ApiClient } from '../../db/entities/ApiClient.js';
import { Branch } from '../../db/entities/Branch.js';
import { Role } from '../../db/entities/Role.js';
import { RoleAssignment } from '../../db/entities/RoleAssignment.js';
import { Vehicle } from '../../db/entities/Vehicle.js';
import { tenantEm } from '../../db/orm.js';
import { hashSecret } from '../../platform/secrets.js';
import { startSession, type Session } from './session.js';

/** What a maintenance suite works with. */
export interface MaintenanceSession {
  session: Session;
  operator: string;
  reader: string;
  rivalOperator: string;
  appToken: string;
  vehicles: Vehicle[];
}

/** Starts the stack with a rival tenant and creates the district-scoped reader. */
export async function startMaintenanceSession(rivalPrefix: string): Promise<MaintenanceSession> {
  const session = await startSession({ rival: { prefix: rivalPrefix, name: 'Rival Maintenance' } });
  const { stack, seed } = session;
  const setup = tenantEm(stack.backend.orm, seed.tenant);
  const vehicles = await setup.find(Vehicle, { branch: seed.branchId }, { orderBy: { id: 'asc' } });
  const role = setup.create(Role, { name: 'Maintenance reader', permissions: ['MAINTENANCE_READ'] });
  const client = setup.create(ApiClient, {
    clientId: 'mt-reader',
    name: 'Maintenance reader',
    secretHash: await hashSecret('mt-reader-secret'),
    scopes: ['back'],
  });
  setup.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: client.clientId,
    branch: setup.getReference(Branch, seed.branchId),
  });
  await setup.flush();
  const reader = await stack.token(seed.tenant, { clientId: 'mt-reader', clientSecret: 'mt-reader-secret' });
  return {
    session,
    operator: session.operatorToken,
    reader,
    rivalOperator: session.rivalOperatorToken,
    appToken: session.appClientToken,
    vehicles,
  };
}
