import type { SenderLock } from "../../chains/evm/sender-lock.js";
import type { ChainRegistry } from "../../domain/chains.js";
import { ErrorCode, TokenServiceError } from "../../domain/errors.js";
import {
  parseWalletPolicy,
  policyDenied,
  policyRefusal,
  presentWalletPolicy,
  storedWalletPolicy,
  type PolicedWrite,
  type WalletPolicy,
} from "../../domain/wallet-policy.js";
import { parseEvmAddress } from "../../domain/addresses.js";
import { parseBitcoinAddress } from "../../chains/bitcoin/addresses.js";
import type { CustodyStore, HolderScope } from "./types.js";

/** A write a held wallet is asked to sign, as its policy judges it. */
export interface AdmittedWrite extends PolicedWrite {
  sender: string;
  /** The record it will be: its spending is counted under this id. */
  operationId: string;
}

const day = (now: Date) => now.toISOString().slice(0, 10);

/**
 * The policies of held wallets: set and read by the API key that holds the wallet, and applied to every write signed
 * for it. The day's native spending is written in the store when a write is admitted (shared by replicas, kept across
 * restarts), under a lock on the wallet so that two writes at once cannot both pass the limit.
 */
export class WalletPolicies {
  constructor(
    private readonly store: CustodyStore,
    private readonly chains: ChainRegistry,
    private readonly lock: SenderLock,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Replaces the wallet's policy (every rule optional); NOT_FOUND when the scope holds no wallet at that address. */
  async set(scope: HolderScope, addressValue: unknown, body: Record<string, unknown>): Promise<Record<string, string | string[]>> {
    const { address, bitcoinNetwork } = await this.ownAddress(scope, addressValue);
    const policy = parseWalletPolicy(
      body,
      (value, field) => {
        const [chain, network, extra] = value.split("/");
        const info = extra === undefined && network !== undefined ? this.chains.resolve(chain, network) : undefined;
        if (info === undefined)
          throw new TokenServiceError(ErrorCode.INVALID_ARGUMENT, `${field} must name a pair as chain/network (ethereum/sepolia)`, {
            field,
          });
        return `${info.chain}/${info.network}`;
      },
      bitcoinNetwork === undefined ? undefined : (value, field) => parseBitcoinAddress(value, bitcoinNetwork, field),
    );
    const shown = presentWalletPolicy(policy);
    await this.store.writePolicy(address, scope === "operator" ? null : scope.apiKeyId, shown);
    return shown;
  }

  /** The wallet's policy ({} when none is set); NOT_FOUND when the scope holds no wallet at that address. */
  async get(scope: HolderScope, addressValue: unknown): Promise<Record<string, string | string[]>> {
    const { address } = await this.ownAddress(scope, addressValue);
    const stored = await this.store.readPolicy(address);
    return stored === undefined ? {} : presentWalletPolicy(storedWalletPolicy(stored.policy));
  }

  /** The policy of a held wallet, if it has one. */
  async of(address: string): Promise<WalletPolicy | undefined> {
    const stored = await this.store.readPolicy(address);
    return stored === undefined ? undefined : storedWalletPolicy(stored.policy);
  }

  /**
   * Runs `run` (the write: signing, recording, sending) if the wallet's policy lets it through, else POLICY_DENIED
   * before anything is signed. A write that sends value under a daily limit is counted first, under the wallet's lock,
   * and uncounted if it fails before it was sent.
   */
  async admit<T>(write: AdmittedWrite, policy: WalletPolicy | undefined, run: () => Promise<T>, spent: () => Promise<boolean>): Promise<T> {
    if (policy === undefined) return run();
    const counted = policy.maxValuePerDay !== undefined && write.value > 0n;
    if (!counted) {
      const refusal = policyRefusal(policy, write, 0n);
      if (refusal !== undefined) throw policyDenied(write.sender, refusal);
      return run();
    }
    const { chain, network } = write.pair;
    const today = day(this.now());
    await this.lock.withLock(`policy:${chain}:${network}:${write.sender.toLowerCase()}`, async () => {
      const refusal = policyRefusal(policy, write, await this.store.spentOn(chain, network, write.sender, today));
      if (refusal !== undefined) throw policyDenied(write.sender, refusal);
      await this.store.recordSpending({
        operationId: write.operationId,
        chain,
        network,
        address: write.sender,
        day: today,
        value: write.value,
      });
    });
    try {
      return await run();
    } catch (error) {
      // Refused before the node had it (a storage refusal, a revert found before signing): nothing was spent.
      if (!(await spent())) await this.store.forgetSpending(write.operationId).catch(() => undefined);
      throw error;
    }
  }

  /** The held address, if the scope holds it; a Bitcoin wallet's network with it. */
  private async ownAddress(scope: HolderScope, value: unknown): Promise<{ address: string; bitcoinNetwork?: string }> {
    if (typeof value !== "string" || value === "" || value.length > 100) {
      throw new TokenServiceError(ErrorCode.HELD_WALLET_NOT_FOUND, "no held wallet at that address for this API key", { field: "address" });
    }
    const evm = /^0x[0-9a-fA-F]{40}$/.test(value);
    const address = evm ? parseEvmAddress(value, "address") : value;
    const held = (await this.store.heldPairsOf(address)).filter((record) => scope === "operator" || record.apiKeyId === scope.apiKeyId);
    if (held.length === 0) {
      throw new TokenServiceError(ErrorCode.HELD_WALLET_NOT_FOUND, `no held wallet ${address} for this API key`, { field: "address" });
    }
    const bitcoin = held.find((record) => record.chain === "bitcoin");
    return bitcoin === undefined ? { address } : { address, bitcoinNetwork: bitcoin.network };
  }
}
