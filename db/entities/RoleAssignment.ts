import { Check, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Role } from './Role.js';
import { Branch } from './Branch.js';
import { BusinessUnit } from './BusinessUnit.js';

export type SubjectType = 'API_CLIENT' | 'OPERATOR';

/**
 * Grants a role to a subject on exactly one scope: a branch (operational permissions, covering its
 * descendants) or a business unit (finance permissions).
 */
@Entity({ tableName: 'role_assignment' })
@Index({ properties: ['tenant', 'subjectType', 'subjectId'] })
@Check({ name: 'role_assignment_one_scope', expression: '(branch_id is null) <> (business_unit_id is null)' })
export class RoleAssignment extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Role, ref: false })
  role!: Role;

  @Property({ type: 'string', length: 16 })
  subjectType!: SubjectType;

  @Property({ type: 'string', length: 200 })
  subjectId!: string;

  @ManyToOne({ entity: () => Branch, nullable: true, ref: false })
  branch?: Branch | null;

  @ManyToOne({ entity: () => BusinessUnit, nullable: true, ref: false })
  businessUnit?: BusinessUnit | null;
}
