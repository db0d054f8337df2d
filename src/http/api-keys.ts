import { hash, timingSafeEqual } from "node:crypto";

import type { Store } from "../store/types.js";

// One-shot: no Hash object per request.
const sha256 = (value: string): Buffer => hash("sha256", value, "buffer");

/**
 * Resolves a presented API key to a key id. Keys from TOKEN_SERVICE_API_KEYS are
 * compared by hash in constant time; the rest are looked up in the store.
 */
const STORED_KEY_MEMORY_MS = 60_000;
const STORED_KEYS_REMEMBERED = 1_000;

export class ApiKeyVerifier {
  private readonly environmentKeys: Array<{ id: string; hash: Buffer }>;
  private readonly storedKeys = new Map<string, { id: string; until: number }>();

  constructor(
    environmentKeys: string[],
    private readonly store: Store,
  ) {
    this.environmentKeys = environmentKeys.map((key) => {
      const keyHash = sha256(key);
      return { id: `env-${keyHash.subarray(0, 4).toString("hex")}`, hash: keyHash };
    });
  }

  async verify(presented: string): Promise<string | undefined> {
    const digest = sha256(presented);
    let match: string | undefined;
    // Every configured key is compared, match or not, so timing says nothing about which one matched.
    for (const key of this.environmentKeys) {
      if (timingSafeEqual(key.hash, digest)) match ??= key.id;
    }
    if (match !== undefined) return match;
    // A stored key, once found, is remembered by its digest for a minute: a client's requests then cost no store read.
    // Only found keys are: a key made by `apikey:create` a moment ago is accepted at its first request.
    const hex = digest.toString("hex");
    const known = this.storedKeys.get(hex);
    if (known !== undefined && known.until > Date.now()) return known.id;
    const id = await this.store.verifyApiKey(presented);
    if (id !== undefined) {
      if (this.storedKeys.size >= STORED_KEYS_REMEMBERED) this.storedKeys.delete(this.storedKeys.keys().next().value as string);
      this.storedKeys.set(hex, { id, until: Date.now() + STORED_KEY_MEMORY_MS });
    }
    return id;
  }
}

export function parseApiKeyList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key !== "");
}
