import { gzip } from "node:zlib";
import { promisify } from "node:util";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { weakEtag } from "./etag.js";

/**
 * A large read-only answer (the OpenAPI document, Swagger UI's bundle) served from one Buffer that every request shares,
 * and its gzip form made once. Streaming the file, or serializing the document, per request gave each request
 * megabytes of its own chunks; after a burst of a few hundred downloads the process kept about 60 MiB of them in its
 * allocator's free lists. A shared Buffer is written to each socket without a copy, so a slow reader holds a reference,
 * not bytes of its own. Loaded on the first request: a service nobody browses never reads them.
 */

const gzipAsync = promisify(gzip);

interface Representation {
  identity: Buffer;
  gzipped: Buffer;
  etag: string;
}

export interface SharedBytesOptions {
  /** The Content-Type header. */
  type: string;
  /** The bytes, read or built once. */
  load: () => Buffer | Promise<Buffer>;
}

/** A handler answering GET and HEAD with the shared bytes, 304 to a matching If-None-Match, gzip when accepted. */
export function sharedBytes({ type, load }: SharedBytesOptions): RequestHandler {
  let representation: Promise<Representation> | undefined;
  const represent = async (): Promise<Representation> => {
    const identity = await load();
    return { identity, gzipped: await gzipAsync(identity), etag: weakEtag(identity) };
  };
  return (request: Request, response: Response, next: NextFunction) => {
    (representation ??= represent()).then(
      ({ identity, gzipped, etag }) => {
        // Every answer names the identity's ETag: both forms carry the same content (a weak validator).
        response.vary("Accept-Encoding").set({ "Content-Type": type, ETag: etag, "Cache-Control": "no-cache" });
        if (request.fresh) return void response.status(304).end();
        const body = request.acceptsEncodings("gzip", "identity") === "gzip" ? gzipped : identity;
        if (body === gzipped) response.set("Content-Encoding", "gzip");
        response.set("Content-Length", String(body.length));
        response.end(request.method === "HEAD" ? undefined : body);
      },
      (error: unknown) => {
        representation = undefined;
        next(error);
      },
    );
  };
}
