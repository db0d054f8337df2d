import { hash } from "node:crypto";

/**
 * Express's default (weak) ETag, the same string, from a one-shot SHA-1: Express's generator builds a Hash object for
 * every response, POST answers included, which cost several microseconds of each wallet creation.
 */
export function weakEtag(body: string | Buffer, encoding?: BufferEncoding): string {
  const bytes = typeof body === "string" ? Buffer.from(body, encoding) : body;
  return `W/"${bytes.length.toString(16)}-${hash("sha1", bytes, "base64").substring(0, 27)}"`;
}
