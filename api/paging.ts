import type { Request, Response } from 'express';

export interface PageRequest {
  page: number;
  size: number;
  offset: number;
}

/** Page and size from the query (the validator has already checked and defaulted them). */
export function pageRequest(req: Request, defaultSize = 20): PageRequest {
  const page = Number(req.query.page ?? 0);
  const size = Number(req.query.size ?? defaultSize);
  return { page, size, offset: page * size };
}

/** The spec's paging headers: X-Total-Count, X-Total-Pages, X-Page-Number, X-Page-Size. */
export function setPagingHeaders(res: Response, total: number, { page, size }: PageRequest): void {
  res.setHeader('X-Total-Count', String(total));
  res.setHeader('X-Total-Pages', String(Math.ceil(total / size)));
  res.setHeader('X-Page-Number', String(page));
  res.setHeader('X-Page-Size', String(size));
}

/** `field,DESC` → MikroORM orderBy, with a stable tie-break on id. */
export function orderBy(sort: string | undefined, fallback: string): Record<string, 'asc' | 'desc'> {
  const [field, direction] = (sort ?? fallback).split(',');
  const order = (direction ?? 'asc').toLowerCase() === 'desc' ? 'desc' : 'asc';
  return field === 'id' ? { id: order } : { [field!]: order, id: order };
}
