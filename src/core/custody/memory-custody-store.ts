import { invalidArgument } from "../../domain/errors.js";
import type { CustodyStore, HeldWalletPage, HeldWalletRecord, KeystoreRecord } from "./types.js";

const MAX_PAGE_SIZE = 100;

/**
 * The keystore and held wallets in this process's memory: the programmatic API's default, as its operation records are
 * (a service given a store keeps them there). Gone when the process ends, as the keys are.
 */
export class MemoryCustodyStore implements CustodyStore {
  private keystore: KeystoreRecord | undefined;
  private nextIndex = 0;
  /** In insertion order, by "chain/network/address". */
  private readonly wallets = new Map<string, HeldWalletRecord>();

  async readKeystore(): Promise<KeystoreRecord | undefined> {
    return this.keystore;
  }

  async initKeystore(record: KeystoreRecord, nextIndex = 0): Promise<KeystoreRecord> {
    if (this.keystore === undefined) {
      this.keystore = { ...record };
      this.nextIndex = nextIndex;
    }
    return this.keystore;
  }

  async derivedWallets(): Promise<HeldWalletRecord[]> {
    return [...this.wallets.values()].filter((record) => record.source === "derived");
  }

  async takeDerivationIndex(): Promise<number> {
    return this.nextIndex++;
  }

  async insertHeldWallet(record: HeldWalletRecord): Promise<boolean> {
    const key = `${record.chain}/${record.network}/${record.address.toLowerCase()}`;
    if (this.wallets.has(key)) return false;
    this.wallets.set(key, { ...record });
    return true;
  }

  async findHeldWallet(chain: string, network: string, address: string): Promise<HeldWalletRecord | undefined> {
    return this.wallets.get(`${chain}/${network}/${address.toLowerCase()}`);
  }

  async heldPairsOf(address: string): Promise<HeldWalletRecord[]> {
    return [...this.wallets.values()].filter((record) => record.address.toLowerCase() === address.toLowerCase());
  }

  async listHeldWallets(
    apiKeyId: string | null | undefined,
    options: { chain?: string; network?: string; limit: number; cursor?: string },
  ): Promise<HeldWalletPage> {
    if (!Number.isInteger(options.limit) || options.limit < 1 || options.limit > MAX_PAGE_SIZE) {
      throw invalidArgument("limit", `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    }
    const newestFirst = [...this.wallets.values()]
      .reverse()
      .filter(
        (record) =>
          (apiKeyId === undefined || record.apiKeyId === apiKeyId) &&
          (options.chain === undefined || record.chain === options.chain) &&
          (options.network === undefined || record.network === options.network),
      );
    let start = 0;
    if (options.cursor !== undefined) {
      start = Number(Buffer.from(options.cursor, "base64url").toString("utf8"));
      if (!Number.isInteger(start) || start < 1 || start > newestFirst.length)
        throw invalidArgument("cursor", "cursor is not one this service returned");
    }
    const items = newestFirst.slice(start, start + options.limit);
    const next = start + options.limit;
    return { items, nextCursor: next < newestFirst.length ? Buffer.from(String(next), "utf8").toString("base64url") : null };
  }

  private readonly policies = new Map<string, { apiKeyId: string | null; policy: Record<string, unknown> }>();
  private readonly spending = new Map<string, { key: string; value: bigint }>();

  async readPolicy(address: string): Promise<{ apiKeyId: string | null; policy: Record<string, unknown> } | undefined> {
    return this.policies.get(address.toLowerCase());
  }

  async writePolicy(address: string, apiKeyId: string | null, policy: Record<string, unknown>): Promise<void> {
    this.policies.set(address.toLowerCase(), { apiKeyId, policy });
  }

  async spentOn(chain: string, network: string, address: string, day: string): Promise<bigint> {
    const key = `${chain}/${network}/${address.toLowerCase()}/${day}`;
    let sum = 0n;
    for (const entry of this.spending.values()) if (entry.key === key) sum += entry.value;
    return sum;
  }

  async recordSpending(entry: {
    operationId: string;
    chain: string;
    network: string;
    address: string;
    day: string;
    value: bigint;
  }): Promise<void> {
    this.spending.set(entry.operationId, {
      key: `${entry.chain}/${entry.network}/${entry.address.toLowerCase()}/${entry.day}`,
      value: entry.value,
    });
  }

  async forgetSpending(operationId: string): Promise<void> {
    this.spending.delete(operationId);
  }

  async importedKeys(): Promise<Array<{ chain: string; network: string; address: string; encryptedKey: string }>> {
    return [...this.wallets.values()]
      .filter((record) => record.source === "imported")
      .map((record) => ({ chain: record.chain, network: record.network, address: record.address, encryptedKey: record.encryptedKey! }));
  }

  async reencrypt(
    seed: string,
    importedKeys: Array<{ chain: string; network: string; address: string; encryptedKey: string }>,
  ): Promise<void> {
    if (this.keystore !== undefined) this.keystore = { ...this.keystore, seed };
    for (const entry of importedKeys) {
      const record = this.wallets.get(`${entry.chain}/${entry.network}/${entry.address.toLowerCase()}`);
      if (record !== undefined) record.encryptedKey = entry.encryptedKey;
    }
  }
}
