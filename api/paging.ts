/** `field,DESC` → MikroORM orderBy, with a stable tie-break on id. */
export function orderBy(sort: string | undefined, fallback: string): Record<string, 'asc' | 'desc'> {
  const [field, direction] = (sort ?? fallback).split(',');
  const order = (direction ?? 'asc').toLowerCase() === 'desc' ? 'desc' : 'asc';
  return field === 'id' ? { id: order } : { [field!]: order, id: order };
}
