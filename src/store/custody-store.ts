import { sql, type Kysely, type Selectable } from "kysely";

import { getAddress } from "ethers";

import type { CustodyStore, HeldWalletPage, HeldWalletRecord, KeystoreRecord } from "../core/custody/types.js";
import { invalidArgument } from "../domain/errors.js";
import type { DialectSql } from "./dialect.js";
import type { Database } from "./schema.js";

const MAX_PAGE_SIZE = 100;
/** The one keystore row. */
const KEYSTORE_ID = "seed";

type HeldRow = Selectable<Database["held_wallets"]>;

/** Where a page of held wallets ends: the last row's creation time and its pair and address. */
function encodeCursor(row: HeldRow): string {
  return Buffer.from(JSON.stringify([String(row.created_at), row.chain, row.network, row.address]), "utf8").toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: number; key: string } {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 4 ||
    typeof decoded[0] !== "string" ||
    !/^\d{1,15}$/.test(decoded[0]) ||
    !decoded.slice(1).every((part) => typeof part === "string" && part.length > 0 && part.length <= 100)
  ) {
    throw invalidArgument("cursor", "cursor is not one this service returned");
  }
  return { createdAt: Number(decoded[0]), key: `${decoded[1]}/${decoded[2]}/${decoded[3]}` };
}

function toRecord(row: HeldRow): HeldWalletRecord {
  return {
    chain: row.chain,
    network: row.network,
    // An EVM address checksummed; a Bitcoin one (bech32, lowercase) as it is.
    address: row.chain === "bitcoin" ? row.address : getAddress(row.address),
    apiKeyId: row.api_key_id,
    source: row.source,
    derivationIndex: row.derivation_index === null ? null : Number(row.derivation_index),
    encryptedKey: row.encrypted_key,
    kmsKeyId: row.kms_key_id,
    createdAt: new Date(Number(row.created_at)).toISOString(),
  };
}

/** The keystore and the held wallets, over the same Kysely database as the operations (shared by replicas). */
export class KyselyCustodyStore implements CustodyStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly d: DialectSql,
  ) {}

  async readKeystore(): Promise<KeystoreRecord | undefined> {
    const row = await this.db.selectFrom("keystore").select(["seed", "evm_account_key"]).where("id", "=", KEYSTORE_ID).executeTakeFirst();
    return row === undefined ? undefined : { seed: row.seed, evmAccountKey: row.evm_account_key };
  }

  async initKeystore(record: KeystoreRecord, nextIndex = 0): Promise<KeystoreRecord> {
    const now = Date.now();
    await this.db
      .insertInto("keystore")
      .values({
        id: KEYSTORE_ID,
        seed: record.seed,
        evm_account_key: record.evmAccountKey,
        next_index: nextIndex,
        created_at: now,
        updated_at: now,
      })
      .onConflict((conflict) => conflict.column("id").doNothing())
      .execute();
    return (await this.readKeystore())!;
  }

  async takeDerivationIndex(): Promise<number> {
    // One statement: two replicas never take the same index.
    const row = await this.db
      .updateTable("keystore")
      .set({ next_index: sql`next_index + 1`, updated_at: this.d.nowMs })
      .where("id", "=", KEYSTORE_ID)
      .returning("next_index")
      .executeTakeFirstOrThrow();
    return Number(row.next_index) - 1;
  }

  async insertHeldWallet(record: HeldWalletRecord): Promise<boolean> {
    const result = await this.db
      .insertInto("held_wallets")
      .values({
        chain: record.chain,
        network: record.network,
        address: record.address.toLowerCase(),
        api_key_id: record.apiKeyId,
        source: record.source,
        derivation_index: record.derivationIndex,
        encrypted_key: record.encryptedKey,
        kms_key_id: record.kmsKeyId,
        created_at: Date.parse(record.createdAt),
      })
      .onConflict((conflict) => conflict.columns(["chain", "network", "address"]).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async findHeldWallet(chain: string, network: string, address: string): Promise<HeldWalletRecord | undefined> {
    const row = await this.db
      .selectFrom("held_wallets")
      .selectAll()
      .where("chain", "=", chain)
      .where("network", "=", network)
      .where("address", "=", address.toLowerCase())
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row);
  }

  async derivedWallets(): Promise<HeldWalletRecord[]> {
    return (await this.db.selectFrom("held_wallets").selectAll().where("source", "=", "derived").execute()).map(toRecord);
  }

  async heldPairsOf(address: string): Promise<HeldWalletRecord[]> {
    const rows = await this.db.selectFrom("held_wallets").selectAll().where("address", "=", address.toLowerCase()).execute();
    return rows.map(toRecord);
  }

  async listHeldWallets(
    apiKeyId: string | null | undefined,
    options: { chain?: string; network?: string; limit: number; cursor?: string },
  ): Promise<HeldWalletPage> {
    const { limit } = options;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw invalidArgument("limit", `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
    }
    const key = sql<string>`chain || '/' || network || '/' || address`;
    let query = this.db
      .selectFrom("held_wallets")
      .selectAll()
      .orderBy("created_at", "desc")
      .orderBy(key, "desc")
      .limit(limit + 1);
    if (apiKeyId !== undefined) query = query.where("api_key_id", apiKeyId === null ? "is" : "=", apiKeyId);
    if (options.chain !== undefined) query = query.where("chain", "=", options.chain);
    if (options.network !== undefined) query = query.where("network", "=", options.network);
    if (options.cursor !== undefined) {
      const after = decodeCursor(options.cursor);
      query = query.where(sql<boolean>`(created_at < ${after.createdAt} or (created_at = ${after.createdAt} and ${key} < ${after.key}))`);
    }
    const rows = await query.execute();
    const page = rows.slice(0, limit);
    return { items: page.map(toRecord), nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!) : null };
  }

  async readPolicy(address: string): Promise<{ apiKeyId: string | null; policy: Record<string, unknown> } | undefined> {
    const row = await this.db
      .selectFrom("wallet_policies")
      .select(["api_key_id", "policy"])
      .where("address", "=", address.toLowerCase())
      .executeTakeFirst();
    if (row === undefined) return undefined;
    // PostgreSQL parses jsonb; SQLite keeps the text.
    const policy = (typeof row.policy === "string" ? JSON.parse(row.policy) : row.policy) as Record<string, unknown>;
    return { apiKeyId: row.api_key_id, policy };
  }

  async writePolicy(address: string, apiKeyId: string | null, policy: Record<string, unknown>): Promise<void> {
    const text = JSON.stringify(policy);
    const now = Date.now();
    await this.db
      .insertInto("wallet_policies")
      .values({ address: address.toLowerCase(), api_key_id: apiKeyId, policy: text, updated_at: now })
      .onConflict((conflict) => conflict.column("address").doUpdateSet({ policy: text, api_key_id: apiKeyId, updated_at: now }))
      .execute();
  }

  async spentOn(chain: string, network: string, address: string, day: string): Promise<bigint> {
    const rows = await this.db
      .selectFrom("wallet_spending")
      .select("value")
      .where("chain", "=", chain)
      .where("network", "=", network)
      .where("address", "=", address.toLowerCase())
      .where("day", "=", day)
      .execute();
    return rows.reduce((sum, row) => sum + BigInt(row.value), 0n);
  }

  async recordSpending(entry: {
    operationId: string;
    chain: string;
    network: string;
    address: string;
    day: string;
    value: bigint;
  }): Promise<void> {
    await this.db
      .insertInto("wallet_spending")
      .values({
        operation_id: entry.operationId,
        chain: entry.chain,
        network: entry.network,
        address: entry.address.toLowerCase(),
        day: entry.day,
        value: entry.value.toString(),
        created_at: Date.now(),
      })
      .execute();
  }

  async forgetSpending(operationId: string): Promise<void> {
    await this.db.deleteFrom("wallet_spending").where("operation_id", "=", operationId).execute();
  }

  async importedKeys(): Promise<Array<{ chain: string; network: string; address: string; encryptedKey: string }>> {
    const rows = await this.db
      .selectFrom("held_wallets")
      .select(["chain", "network", "address", "encrypted_key"])
      .where("source", "=", "imported")
      .execute();
    return rows.map((row) => ({
      chain: row.chain,
      network: row.network,
      address: getAddress(row.address),
      encryptedKey: row.encrypted_key!,
    }));
  }

  async reencrypt(
    seed: string,
    importedKeys: Array<{ chain: string; network: string; address: string; encryptedKey: string }>,
  ): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable("keystore").set({ seed, updated_at: Date.now() }).where("id", "=", KEYSTORE_ID).execute();
      for (const entry of importedKeys) {
        await trx
          .updateTable("held_wallets")
          .set({ encrypted_key: entry.encryptedKey })
          .where("chain", "=", entry.chain)
          .where("network", "=", entry.network)
          .where("address", "=", entry.address.toLowerCase())
          .execute();
      }
    });
  }
}
