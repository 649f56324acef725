// The one place workflow ids are built, so ops can find any process in the Temporal UI by reading it.

/** `rental:{tenant}:{rentalId}` — one workflow per rental. */
export function rentalWorkflowId(tenant: string, rentalId: number): string {
  return `rental:${tenant}:${rentalId}`;
}
