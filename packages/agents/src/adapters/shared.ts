import { APIError } from '../errors.js';

/**
 * Adapters wrap providers they do not know: an error that is not an `APIError` is most likely a bug in
 * the provider, which trying again will not fix, so it is wrapped as not retryable.
 */
export function toAPIError(error: unknown, label: string): APIError {
  if (error instanceof APIError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new APIError(`${label}: ${message}`, { retryable: false, cause: error });
}
