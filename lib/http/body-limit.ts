import type { IncomingMessage } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { writeJsonError } from './json-error.js';
import { requestSlot } from '../core/request-slot.js';

/**
 * Body limits in bytes per kind of route, as their own parsers apply them: oidc-provider's (56 KiB,
 * `lib/shared/selective_body.js`), our forms' (`parseForm`, 16 KiB), GraphQL's (`GRAPHQL_BODY_LIMIT`, 100 KiB).
 * Checked again on a body a host parser read first.
 */
export const BODY_LIMITS = Object.freeze({ provider: 56 * 1024, pages: 16 * 1024, graphql: 100 * 1024 });

/**
 * `413 invalid_request` (RFC 9110 §15.5.14) as JSON for a body over `limitBytes`, the limit in KiB as the limits
 * are documented (docs/guides/hosts.md, "Body parsers"): the same answer whoever noticed it (a `Content-Length` over
 * the limit, a
 * chunked body that grew past it, or a host parser's raw body, lib/http/host-body.ts).
 */
export function refuseLargeBody(ctx: Context, limitBytes: number): void {
  writeJsonError(
    ctx,
    413,
    'invalid_request',
    `The request body is larger than this endpoint accepts (${Math.floor(limitBytes / 1024)} KiB).`,
  );
}

/** A request as oidc-provider's body reader consumes it: `req.readable`, then `req.iterator()`. */
export type ReadableRequest = IncomingMessage & { iterator(options?: object): AsyncIterable<Buffer> };

/** The bytes {@link replayBody} hands to the next reader of `req.iterator()`, and whether one has taken them. */
const replayed = requestSlot<{ bytes: Buffer; taken: boolean }>('portcullis.replayedBody');

/**
 * `req.readable` of a replayed request: true until a reader has taken the bytes (the same getter for every request).
 */
const REPLAYED_READABLE: PropertyDescriptor = {
  configurable: true,
  get(this: IncomingMessage) {
    return replayed.get(this)?.taken === false;
  },
};

/** One chunk, then done: what `for await` of oidc-provider's reader needs, without an async generator's promises. */
function replayIterator(this: IncomingMessage): AsyncIterableIterator<Buffer> {
  const replay = replayed.get(this);
  const iterator: AsyncIterableIterator<Buffer> = {
    [Symbol.asyncIterator]: () => iterator,
    next: () => {
      if (!replay || replay.taken) return Promise.resolve({ value: undefined, done: true });
      replay.taken = true;
      return Promise.resolve(
        replay.bytes.length ? { value: replay.bytes, done: false } : { value: undefined, done: true },
      );
    },
    return: () => Promise.resolve({ value: undefined, done: true }),
  };
  return iterator;
}

const REPLAYED_ITERATOR: PropertyDescriptor = { configurable: true, writable: true, value: replayIterator };

/**
 * Makes a request stream that was already read readable again with the same `bytes`, the way oidc-provider's body
 * reader consumes it (`req.readable`, then `req.iterator()`): after a host parser (lib/http/host-body.ts) or our own
 * check of a form body (lib/http/provider-input.ts). The request keeps the bytes ({@link replayedBody}), so a check
 * that runs after a host parser's replay reads them without taking them. One accessor and one own method per request
 * (the same functions for all), not a generator: this runs on every `/token` request.
 */
export function replayBody(req: IncomingMessage, bytes: Buffer): void {
  const first = replayed.get(req) === undefined;
  replayed.set(req, { bytes, taken: false });
  if (!first) return;
  // defined, not assigned: the counting wrapper of a chunked body (limitProviderBody) is a read-only own property
  Object.defineProperty(req, 'readable', REPLAYED_READABLE);
  Object.defineProperty(req, 'iterator', REPLAYED_ITERATOR);
}

/**
 * The bytes {@link replayBody} replays, while no reader has taken them; `undefined` for a request that was not
 * replayed.
 */
export function replayedBody(req: IncomingMessage): Buffer | undefined {
  const replay = replayed.get(req);
  return replay && !replay.taken ? replay.bytes : undefined;
}

/**
 * Reads a request stream nobody has read to its end by its events (`data`, `end`): cheaper than `req.iterator()`
 * (which adds an end-of-stream watcher and promises per chunk), for a body read on every `/token` request.
 * `'too large'` as soon as more than `limitBytes` arrived (the stream is paused, the rest left unread); `'closed'` when
 * the stream closed before its end without an error (destroyed: nobody is left to answer); rejects with the stream's
 * error (a client that went away: Node's `ECONNRESET` "aborted").
 */
export function readWholeBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | 'too large' | 'closed'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    function onData(chunk: Buffer) {
      received += chunk.length;
      if (received > limitBytes) {
        stop();
        req.pause();
        resolve('too large');
        return;
      }
      chunks.push(chunk);
    }
    function onEnd() {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    }
    function onError(err: Error) {
      stop();
      reject(err);
    }
    function onClose() {
      stop();
      resolve('closed');
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** Counts the bytes a reader of `req.iterator()` (oidc-provider's body reader) takes from a chunked body. */
function countReadBytes(req: ReadableRequest): { bytes: number } {
  const counter = { bytes: 0 };
  const original = req.iterator.bind(req);
  Object.defineProperty(req, 'iterator', {
    configurable: true,
    value: async function* counted(options?: object) {
      for await (const chunk of original(options)) {
        counter.bytes += chunk.length;
        yield chunk;
      }
    },
  });
  return counter;
}

/**
 * Before oidc-provider reads a request body: `413 invalid_request` naming the limit for a body over `limitBytes`.
 * oidc-provider refuses such a body as `400 invalid_request` "failed to parse the request body", which tells the
 * client neither the cause nor that a smaller body would do. A declared `Content-Length` over the limit is refused
 * before a byte is read; a chunked body (no `Content-Length`) is counted as oidc-provider reads it, and its 400
 * becomes the 413 when the count passed the limit.
 */
export function limitProviderBody(limitBytes: number): Middleware {
  return function limitProviderBody(ctx: Context, next: Next) {
    const length = ctx.request.length;
    if (length !== undefined) return length > limitBytes ? refuseLargeBody(ctx, limitBytes) : next();
    const req = ctx.req as ReadableRequest;
    if (!req.readable || !ctx.get('transfer-encoding')) return next();
    const read = countReadBytes(req);
    return (async () => {
      await next();
      if (ctx.status === 400 && read.bytes > limitBytes) refuseLargeBody(ctx, limitBytes);
    })();
  };
}

/**
 * Marks a request whose body a host parser read before us and `adoptHostBody` (lib/http/host-body.ts) handed on: that
 * parser has
 * already undone any Content-Encoding (as `@koa/bodyparser` does), so the coding check of the provider endpoints
 * ({@link encodedBody}) does not apply to it.
 */
export const hostBodyAdopted = requestSlot<true>('portcullis.hostBodyAdopted');

/**
 * Whether the body carries a Content-Encoding other than `identity` that nobody has undone. oidc-provider's body
 * reader ignores Content-Encoding: a gzip body was parsed as form text (and answered "no client authentication
 * mechanism provided"), and a body labelled with a coding it is not in (`x-bogus`, `gzip` on plain text) was read
 * as plain. A host parser in front ({@link hostBodyAdopted}) has decoded it already.
 */
export function encodedBody(ctx: Context): boolean {
  const coding = ctx.get('content-encoding');
  return (
    coding !== '' &&
    coding.split(',').some((c) => !['', 'identity'].includes(c.trim().toLowerCase())) &&
    !hostBodyAdopted.get(ctx.req)
  );
}

/**
 * RFC 9110 §15.5.16: 415 for a content coding the endpoint does not accept, with `Accept-Encoding` naming what it does.
 */
export function refuseEncodedBody(ctx: Context): void {
  writeJsonError(
    ctx,
    415,
    'invalid_request',
    `This endpoint does not accept a Content-Encoding (the request ` +
      `has ${JSON.stringify(ctx.get('content-encoding'))}): send the body uncompressed.`,
    { 'Accept-Encoding': 'identity' },
  );
}
