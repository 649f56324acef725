// The failures workflow code throws: catalogue-coded refusals from update validators and steps, and the
// coded failure behind an activity's failure, so the code reaches the API unchanged. Shared by the
// rental, booking and pricing workflows.
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { baseCode, catalogueEntry } from '../domain/errors.js';

/** A non-retryable refusal under a catalogue code (its meaning unless a message is given): what the API answers. */
export function refusal(
  code: string,
  message?: string,
  details?: Record<string, unknown>,
): ApplicationFailure {
  return ApplicationFailure.create({
    type: code,
    message: message ?? catalogueEntry(code).meaning,
    nonRetryable: true,
    details: details ? [details] : undefined,
  });
}

/** The ApplicationFailure behind an activity failure when it carries a catalogue code, so the code passes through. */
export function businessFailure(error: unknown): ApplicationFailure | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type && baseCode(cause.type) ? cause : undefined;
}

/** The coded failure behind an activity failure, or a refusal under `code` when it carries none (a fault). */
export function codedFailure(error: unknown, code: string, message: string): ApplicationFailure {
  return businessFailure(error) ?? refusal(code, message);
}
