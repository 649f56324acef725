// What a violated database constraint means, for turning a lost race into the business error it is.

/** Postgres unique-violation check, for turning a lost race into the business error it means. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const candidate = error as {
    code?: string;
    constraint?: string;
    cause?: { code?: string; constraint?: string };
  };
  const code = candidate?.code ?? candidate?.cause?.code;
  const name = candidate?.constraint ?? candidate?.cause?.constraint;
  return (
    code === '23505' &&
    (constraint === undefined || name === constraint || String(error).includes(constraint))
  );
}
