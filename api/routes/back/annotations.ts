// Operator endpoints of annotations (the "Pricing and benefits" row `/annotations`): tags and labels of a
// business unit that customers carry and templates gate on (guserRequired/ProhibitedAnnotationIds). List
// (query type=TAG or LABEL), create, read, update. Finance permissions BENEFITS_READ / BENEFITS_MANAGE on
// the annotation's business unit. The customers carrying one: annotations-customers.ts.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Type } from '@sinclair/typebox';
import { Annotation, annotationTypes } from '../../../db/entities/Annotation.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';

const tags = ['Annotations'];

export const AnnotationType = component('AnnotationType', StringEnum(annotationTypes));

export const AnnotationSchema = component(
  'Annotation',
  Type.Object(
    {
      id: Id(),
      businessUnitId: Id(),
      type: AnnotationType,
      name: Type.String(),
      description: Nullable(Type.String()),
      color: Nullable(Type.String()),
      createdBy: Type.String(),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** An annotation as the operator sees it. */
export const annotationDto = (annotation: Annotation) => ({
  id: annotation.id,
  businessUnitId: annotation.businessUnitId,
  type: annotation.type,
  name: annotation.name,
  description: annotation.description ?? null,
  color: annotation.color ?? null,
  createdBy: annotation.createdBy,
  createdAt: annotation.createdAt.toISOString(),
  updatedAt: annotation.updatedAt.toISOString(),
});

const Name = Str(100, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' });
const Color = Str(7, { pattern: '^#[0-9A-Fa-f]{6}$', description: '#rrggbb' });

export const AnnotationIdParams = Type.Object({ annotationId: Id() });

/** The annotation of the path, loaded once; AN404. */
export const annotationOfPath = (ctx: RouteContext<{ annotationId: number }>) =>
  ctx.once('annotation', async () => {
    const annotation = await ctx.em.findOne(Annotation, ctx.params.annotationId);
    if (!annotation) throw new DomainError('AN404', `annotation ${ctx.params.annotationId} not found`);
    return annotation;
  });

/** A finance permission on the business unit of the path's annotation. */
export const onTheAnnotation = (permission: 'BENEFITS_READ' | 'BENEFITS_MANAGE') => ({
  permission,
  businessUnitOf: 'the annotation',
  businessUnit: async (ctx: RouteContext<{ annotationId: number }>) =>
    (await annotationOfPath(ctx)).businessUnitId,
});

/** Refuses a name another annotation of the unit and type has (AN100), case ignored. */
async function assertNameFree(ctx: RouteContext, unitId: number, type: string, name: string, except = 0) {
  const other = await ctx.em.findOne(
    Annotation,
    {
      businessUnitId: unitId,
      type: type as Annotation['type'],
      name: { $ilike: name.replace(/[\\%_]/g, (c) => `\\${c}`) },
      id: { $ne: except },
    },
    { fields: ['id'] },
  );
  if (other) throw new DomainError('AN100', `a ${type} named "${name}" exists`);
}

async function flushAnnotation(ctx: RouteContext, name: string) {
  try {
    await ctx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new DomainError('AN100', `an annotation named "${name}" exists`);
    throw error;
  }
}

export const listAnnotations = defineRoute({
  operationId: 'listAnnotations',
  method: 'get',
  path: '/annotations',
  interface: 'back',
  summary: "The tags and labels of a branch's business unit, by name",
  tags,
  query: Type.Object({ branchId: Id(), type: Type.Optional(AnnotationType) }),
  paged: { defaultSize: 100, maxSize: 500 },
  access: {
    permission: 'BENEFITS_READ',
    businessUnitOf: 'the business unit of the query’s branchId',
    businessUnit: async (ctx) =>
      (await ctx.once('unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId))).id,
  },
  responses: { 200: { description: 'The annotations', schema: Type.Array(AnnotationSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const unit = await ctx.once('unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId));
    const [rows, total] = await ctx.em.findAndCount(
      Annotation,
      { businessUnitId: unit.id, ...(ctx.query.type ? { type: ctx.query.type } : {}) },
      { orderBy: { name: 'asc', id: 'asc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(rows.map(annotationDto), { total });
  },
});

export const createAnnotation = defineRoute({
  operationId: 'createAnnotation',
  method: 'post',
  path: '/annotations',
  interface: 'back',
  summary: 'Create a tag or label of the business unit of a branch',
  tags,
  body: Type.Object(
    {
      branchId: Id(),
      type: AnnotationType,
      name: Name,
      description: Type.Optional(Nullable(Str(1000))),
      color: Type.Optional(Nullable(Color)),
    },
    { additionalProperties: false },
  ),
  access: {
    permission: 'BENEFITS_MANAGE',
    businessUnitOf: 'the business unit of the body’s branchId',
    businessUnit: async (ctx) =>
      (await ctx.once('unit', () => businessUnitOfBranch(ctx.em, ctx.body.branchId))).id,
  },
  responses: { 201: { description: 'The annotation', schema: AnnotationSchema } },
  errors: ['B404', 'AN100'],
  async handler(ctx) {
    const unit = await ctx.once('unit', () => businessUnitOfBranch(ctx.em, ctx.body.branchId));
    const name = ctx.body.name.trim();
    await assertNameFree(ctx, unit.id, ctx.body.type, name);
    const annotation = ctx.em.create(Annotation, {
      businessUnitId: unit.id,
      type: ctx.body.type,
      name,
      description: ctx.body.description ?? null,
      color: ctx.body.color ?? null,
      createdBy: ctx.actor,
    });
    await flushAnnotation(ctx, name);
    return created(annotationDto(annotation), { Location: `${ctx.baseUrl}/annotations/${annotation.id}` });
  },
});

export const getAnnotation = defineRoute({
  operationId: 'getAnnotation',
  method: 'get',
  path: '/annotations/{annotationId}',
  interface: 'back',
  summary: 'A tag or label',
  tags,
  params: AnnotationIdParams,
  access: onTheAnnotation('BENEFITS_READ'),
  responses: { 200: { description: 'The annotation', schema: AnnotationSchema } },
  errors: ['AN404'],
  async handler(ctx) {
    return ok(annotationDto(await annotationOfPath(ctx)));
  },
});

export const updateAnnotation = defineRoute({
  operationId: 'updateAnnotation',
  method: 'put',
  path: '/annotations/{annotationId}',
  interface: 'back',
  summary: 'Rename or describe a tag or label (its type and business unit stay)',
  tags,
  params: AnnotationIdParams,
  body: Type.Object(
    { name: Name, description: Type.Optional(Nullable(Str(1000))), color: Type.Optional(Nullable(Color)) },
    { additionalProperties: false },
  ),
  access: onTheAnnotation('BENEFITS_MANAGE'),
  responses: { 200: { description: 'The annotation', schema: AnnotationSchema } },
  errors: ['AN404', 'AN100'],
  async handler(ctx) {
    const annotation = await annotationOfPath(ctx);
    const name = ctx.body.name.trim();
    await assertNameFree(ctx, annotation.businessUnitId, annotation.type, name, annotation.id);
    annotation.name = name;
    annotation.description = ctx.body.description ?? null;
    annotation.color = ctx.body.color ?? null;
    await flushAnnotation(ctx, name);
    return ok(annotationDto(annotation));
  },
});

export const annotationRoutes = [listAnnotations, createAnnotation, getAnnotation, updateAnnotation];
