// The customers carrying an annotation (what the templates' customer gates read): list, assign, remove.
// Finance permissions on the annotation's business unit; an unknown customer is U106.
import { Type } from '@sinclair/typebox';
import { AnnotationAssignment } from '../../../db/entities/AnnotationAssignment.js';
import { Customer } from '../../../db/entities/Customer.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { DateTime, Id } from '../../kernel/schemas.js';
import { AnnotationIdParams, annotationOfPath, onTheAnnotation } from './annotations.js';

const tags = ['Annotations'];

const AssignmentParams = Type.Object({ annotationId: Id(), userId: Id() });

async function customerOrFail(ctx: RouteContext<{ userId: number }>): Promise<{ id: number }> {
  const customer = await ctx.em.findOne(Customer, ctx.params.userId, { fields: ['id'] });
  if (!customer) throw new DomainError('U106', `customer ${ctx.params.userId} not found`);
  return customer;
}

const AssignmentSchema = Type.Object(
  { annotationId: Id(), guserId: Id(), createdBy: Type.String(), createdAt: DateTime() },
  { additionalProperties: false },
);

export const listAnnotationCustomers = defineRoute({
  operationId: 'listAnnotationCustomers',
  method: 'get',
  path: '/annotations/{annotationId}/customers',
  interface: 'back',
  summary: 'The customers carrying an annotation, most recent first',
  tags,
  params: AnnotationIdParams,
  paged: { defaultSize: 100, maxSize: 500 },
  access: onTheAnnotation('BENEFITS_READ'),
  responses: { 200: { description: 'The assignments', schema: Type.Array(AssignmentSchema) } },
  errors: ['AN404'],
  async handler(ctx) {
    const annotation = await annotationOfPath(ctx);
    const [rows, total] = await ctx.em.findAndCount(
      AnnotationAssignment,
      { annotation: annotation.id },
      { orderBy: { id: 'desc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(
      rows.map((row) => ({
        annotationId: annotation.id,
        guserId: row.customerId,
        createdBy: row.createdBy,
        createdAt: row.createdAt.toISOString(),
      })),
      { total },
    );
  },
});

export const assignAnnotation = defineRoute({
  operationId: 'assignAnnotation',
  method: 'put',
  path: '/annotations/{annotationId}/customers/{userId}',
  interface: 'back',
  summary: 'Give a customer an annotation (idempotent)',
  tags,
  params: AssignmentParams,
  access: onTheAnnotation('BENEFITS_MANAGE'),
  responses: { 204: { description: 'The customer carries it' } },
  errors: ['AN404', 'U106'],
  async handler(ctx) {
    const annotation = await annotationOfPath(ctx);
    const customer = await customerOrFail(ctx);
    await ctx.em.execute(
      `insert into annotation_assignment (tenant_id, customer_id, annotation_id, created_by, created_at)
       values (?, ?, ?, ?, now()) on conflict do nothing`,
      [ctx.tenant, customer.id, annotation.id, ctx.actor],
    );
    return noContent();
  },
});

export const removeAnnotation = defineRoute({
  operationId: 'removeAnnotationFromCustomer',
  method: 'delete',
  path: '/annotations/{annotationId}/customers/{userId}',
  interface: 'back',
  summary: 'Take an annotation from a customer (idempotent)',
  tags,
  params: AssignmentParams,
  access: onTheAnnotation('BENEFITS_MANAGE'),
  responses: { 204: { description: 'The customer does not carry it' } },
  errors: ['AN404', 'U106'],
  async handler(ctx) {
    const annotation = await annotationOfPath(ctx);
    const customer = await customerOrFail(ctx);
    await ctx.em.nativeDelete(AnnotationAssignment, { annotation: annotation.id, customerId: customer.id });
    return noContent();
  },
});

export const annotationCustomerRoutes = [listAnnotationCustomers, assignAnnotation, removeAnnotation];
