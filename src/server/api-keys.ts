import { createHash, timingSafeEqual } from "node:crypto";

import type { Store } from "./store/types.js";

const sha256 = (value: string) => createHash("sha256").update(value).digest();

/**
 * Resolves a presented API key to a key id. Keys from TOKEN_SERVICE_API_KEYS are
 * compared by hash in constant time; the rest are looked up in the store.
 */
export class ApiKeyVerifier {
  private readonly environmentKeys: Array<{ id: string; hash: Buffer }>;

  constructor(
    environmentKeys: string[],
    private readonly store: Store,
  ) {
    this.environmentKeys = environmentKeys.map((key) => {
      const hash = sha256(key);
      return { id: `env-${hash.subarray(0, 4).toString("hex")}`, hash };
    });
  }

  async verify(presented: string): Promise<string | undefined> {
    const hash = sha256(presented);
    let match: string | undefined;
    // Every configured key is compared, match or not, so timing says nothing about which one matched.
    for (const key of this.environmentKeys) {
      if (timingSafeEqual(key.hash, hash)) match ??= key.id;
    }
    return match ?? (await this.store.verifyApiKey(presented));
  }
}

export function parseApiKeyList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key !== "");
}
