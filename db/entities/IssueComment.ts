import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Issue } from './Issue.js';

/** A comment on an issue by an operator (its author's user auth id); only the author changes it. */
@Entity({ tableName: 'issue_comment' })
@Index({ properties: ['tenant', 'issue', 'createdAt'] })
export class IssueComment extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Issue, ref: false, deleteRule: 'cascade' })
  issue!: Issue;

  /** The author's user auth id (operator or API client subject). */
  @Property({ type: 'string', length: 200 })
  authorUserAuthId!: string;

  @Property({ type: 'string', length: 4000 })
  text!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  /** When the author last changed its text or files; null until then. */
  @Property({ type: 'Date', nullable: true })
  editedAt?: Date | null;
}
