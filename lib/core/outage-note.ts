import { StorageUnavailableError } from './errors.js';
import { requestSlot } from './request-slot.js';

/**
 * The storage outage a request met, kept on the Node request (every Koa context made for it, ours and
 * oidc-provider's, shares it) until its request log line is written: that line is then logged at `warn` with the
 * outage's code and words (lib/http/request-log.ts). The first outage a request meets is the one kept.
 */
const slot = requestSlot<StorageUnavailableError>('portcullis.storageOutage');

/** Notes that the request met `err` (a later call for the same request keeps the first). */
export function noteStorageOutage(req: object, err: StorageUnavailableError): void {
  if (!slot.get(req)) slot.set(req, err);
}

/**
 * The outage noted for the request, as log fields: the error's `code` and `message`, and the message of its
 * `cause` (the storage client's error) when it has one. Never a stack trace. `undefined` when none was noted.
 */
export function notedStorageOutage(req: object): { code: string; message: string; cause?: string } | undefined {
  const err = slot.get(req);
  if (!err) return undefined;
  const cause = (err.cause as { message?: unknown } | undefined)?.message;
  return { code: err.code, message: err.message, ...(typeof cause === 'string' ? { cause } : {}) };
}

/**
 * The {@link StorageUnavailableError} behind `err`: itself, or the `cause` of an error wrapping it (oidc-provider's
 * model methods and the provider boundary wrap it in their own `temporarily_unavailable`). `undefined` for anything
 * else. The one place that answers "is this a storage outage?" for the HTTP, provider and GraphQL paths.
 */
export function storageOutageOf(err: unknown): StorageUnavailableError | undefined {
  if (err instanceof StorageUnavailableError) return err;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof StorageUnavailableError ? cause : undefined;
}
