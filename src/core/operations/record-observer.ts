import type { TransactionReceipt } from "ethers";

import type { EvmChain } from "../../chains/evm/chain.js";
import { mintedTokenIds } from "../../chains/evm/write/mint.js";
import { CanonicalBlocks } from "./canonical-blocks.js";
import { PoolChecks, type ChainFollowers, type PassReads, type PoolState } from "./pass-reads.js";
import { replacementDue, type ChainObservation, type Observation } from "./decide.js";
import type { TrackerSettings } from "./tracker-settings.js";
import type { LeasedOperation, OperationRecord } from "./types.js";

// What the chain says of a record when the tracker looks at it (an Observation, for decide): its receipt, whether its
// block is still canonical, whether the node's pool holds its transaction. Reads go through the tracker's pass (one
// head, one receipt batch, one nonce read per sender) and its chain followers.

/** How far another process's clock may be ahead of this one's, where a record's write time says when it was sent. */
const OTHER_CLOCKS_MS = 1_000;

export class RecordObserver {
  private readonly canonicalBlocks = new CanonicalBlocks();
  /** Whether the node held each record's transaction at the last look, while no block since could have changed it. */
  private readonly poolChecks = new PoolChecks();

  constructor(
    private readonly followers: ChainFollowers,
    private readonly settings: Pick<TrackerSettings, "reorgWatchMs">,
    /** How many blocks a pending transaction of the record's pair waits before it is replaced. */
    private readonly replaceAfterBlocks: (record: OperationRecord) => number,
  ) {}

  /** A record whose broadcast this process saw the node accept, not in a block: its pool check starts from the tip. */
  acceptedHere(record: LeasedOperation, chain: EvmChain, sent: string[]): void {
    const tip = this.followers.of(chain)?.latest?.hash;
    if (tip !== undefined) this.poolChecks.accepted(`${record.id}:${sent.join(",")}`, sent[0]!, tip);
  }

  /** What the chain says of a record now. */
  async observe(record: LeasedOperation, chain: EvmChain, pass: PassReads): Promise<Observation> {
    const label = `${chain.info.chain}/${chain.info.network}`;
    if (record.kind === "faucet") {
      if (chain.fund === undefined || chain.hasGrant === undefined)
        return { kind: "grant", simulated: false, granted: false, chainLabel: label };
      const { address } = record.params as { address: string };
      if (!chain.hasGrant(record.id)) return { kind: "grant", simulated: true, granted: false, chainLabel: label };
      return { kind: "grant", simulated: true, granted: true, balance: await chain.provider.getBalance(address), chainLabel: label };
    }
    const poll = chain.pollingIntervalMs;
    // On a simulated chain a mined record is looked at only after its journal lost lines (is the transaction still
    // there?), or after a reorg fault replaced its block (checked as on a live network).
    const replacedFrom = chain.faults?.replacedFrom();
    const reorged = replacedFrom !== undefined && record.blockNumber !== null && record.blockNumber >= replacedFrom;
    const included = record.status === "mined" || record.status === "cancelled";
    if (included && (!chain.simulated || reorged)) {
      const follower = this.followers.of(chain);
      const blocks = follower ?? { hashAt: (number: number) => this.canonicalBlocks.hashAt(chain, number) };
      const hash = record.blockNumber === null ? null : await blocks.hashAt(record.blockNumber);
      // Its block canonical, on a chain this process follows: the follower watches it from here on (one head read per
      // poll interval for all records, not a look per record; see decide's `followed`).
      const followed =
        follower !== undefined &&
        hash !== null &&
        hash === record.blockHash &&
        record.minedAt !== null &&
        this.followers.watch(chain, record.blockNumber!, hash, Date.parse(record.minedAt) + this.settings.reorgWatchMs);
      return { kind: "canonical", hash, pollMs: poll, ...(chain.simulated ? { simulated: true } : {}), ...(followed ? { followed } : {}) };
    }
    if (record.transactionHash === null) return { kind: "no-transaction" };
    const { sent, receipt, minted, head } = await this.receiptOf(record, chain, pass);
    const { pooled, heldNowhere } =
      receipt === null ? await this.poolState(record, chain, sent, pass) : { pooled: undefined, heldNowhere: false };
    const replaceAfterBlocks = this.replaceAfterBlocks(record);
    // Noted lost at an earlier look and not stuck: decide replaces it now, at what the node asks.
    const lostBefore = heldNowhere && record.missingSince !== null && record.stuck === null;
    const due = receipt === null && replacementDue(record, head, replaceAfterBlocks);
    const behindOwnNonces = due && !lostBefore && (await this.behindOwnNonces(record, chain, pass));
    const asks = receipt === null && (lostBefore || due) && !behindOwnNonces ? await pass.feeAsks(chain) : undefined;
    return {
      kind: "chain",
      simulated: chain.simulated,
      pollMs: poll,
      head,
      receipt,
      inPool: pooled !== undefined && !heldNowhere,
      ...(heldNowhere ? { heldNowhere } : {}),
      ...(pooled !== undefined && pooled !== sent[0] ? { pooled } : {}),
      ...(minted !== undefined ? { minted } : {}),
      ...(Number.isFinite(replaceAfterBlocks) ? { replaceAfterBlocks } : {}),
      ...(asks !== undefined ? { needed: asks.fees, floor: asks.floor } : {}),
      ...(behindOwnNonces ? { behindOwnNonces } : {}),
    };
  }

  /**
   * Whether it is not the record's turn on a live chain: the sender's mined nonce count (one read per sender and pass)
   * is below its nonce (its own earlier transactions wait), or past it (mined since the receipts were read: the next
   * look finds it).
   */
  private async behindOwnNonces(record: LeasedOperation, chain: EvmChain, pass: PassReads): Promise<boolean> {
    if (chain.simulated || record.sender === null || record.nonce === null) return false;
    const mined = await pass.minedNonce(chain, record.sender).catch(() => undefined);
    return mined !== undefined && mined !== record.nonce;
  }

  /**
   * Whether one of the record's transactions is in a block: every hash it was sent as is asked (whichever the chain mined
   * settles it: a replacement, or the first one, won the race), with the pass's head, and an ERC721 mint's minted ids.
   */
  async receiptOf(
    record: LeasedOperation,
    chain: EvmChain,
    pass: PassReads,
    firstLook = false,
  ): Promise<{ sent: string[]; receipt: ChainObservation["receipt"]; minted?: ChainObservation["minted"]; head: number }> {
    const sent = [record.transactionHash!.toLowerCase()];
    for (const transaction of record.transactions) {
      if (transaction.broadcastAt !== null && !sent.includes(transaction.transactionHash)) sent.push(transaction.transactionHash);
    }
    // Only an ERC721 mint's minted id is read from the logs; for the rest, where and whether it was included.
    const mintOf = record.kind === "mint" && record.tokenType === "ERC721" ? record.contractAddress : null;
    // The head first: the receipts are then read up to it, and a receipt found is never ahead of it.
    const head = await pass.head(chain);
    // Written before its first broadcast: by this process (its first look) at that time, by another maybe by a clock ahead.
    const writtenBefore = Date.parse(record.createdAt) - (firstLook ? 0 : OTHER_CLOCKS_MS);
    const receipts = await pass.receipts(chain, sent, { block: record.broadcastBlock, time: writtenBefore });
    const found = receipts.findIndex((each) => each !== null);
    if (found === -1) return { sent, receipt: null, head };
    const receipt = receipts[found]!;
    // Its logs are read only here: an ERC721 mint's receipt, whole, once it is in a block.
    const full = mintOf ? await chain.provider.getTransactionReceipt(sent[found]!) : null;
    const minted = mintOf && full !== null ? mintedTokens(record, mintedTokenIds(full as TransactionReceipt, mintOf)) : undefined;
    return {
      sent,
      receipt: { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, status: receipt.status, transactionHash: sent[found]! },
      head,
      ...(minted !== undefined ? { minted } : {}),
    };
  }

  /**
   * Whether a live node's next nonce for the record's sender is the record's own: then it holds nothing it could include
   * at that nonce, whatever it answers by hash (one read per sender and pass; unknown counts as no). A simulated chain
   * is the service's own node: a transaction its base fee overtook waits there outside that count, and is not lost.
   */
  private async holdsNothingAt(record: LeasedOperation, chain: EvmChain, pass: PassReads): Promise<boolean> {
    if (chain.simulated || record.status !== "pending" || record.sender === null || record.nonce === null) return false;
    const next = await pass.nextNonce(chain, record.sender).catch(() => undefined);
    return next === record.nonce;
  }

  /**
   * Whether the node still holds one of the record's transactions, unmined, and whether it holds it nowhere it could
   * include it. On a live chain, asked again only after a block that did not include it, or every few poll intervals
   * (see PoolChecks); between, the last answer stands.
   */
  private async poolState(record: LeasedOperation, chain: EvmChain, sent: string[], pass: PassReads): Promise<PoolState> {
    const follower = this.followers.of(chain);
    const key = `${record.id}:${sent.join(",")}`;
    const tip = follower?.latest?.hash;
    const standing = follower === undefined ? undefined : this.poolChecks.standing(key, tip, chain.pollingIntervalMs);
    // It stands while the node still counts the record's nonce in the sender's next one (read once per sender and pass,
    // for the sender's nonce healing anyway): a node that lost it (or another that took its place) does not.
    if (standing !== undefined && (standing.accepted || (await this.stillCounted(record, chain, pass)))) {
      return { pooled: standing.pooled, heldNowhere: standing.heldNowhere };
    }
    const pooled = await this.pooled(chain, sent);
    const state = { pooled, heldNowhere: pooled !== undefined && (await this.holdsNothingAt(record, chain, pass)) };
    // Only "held, and includable" stands: any other answer leads to a send, after which the next look asks again.
    if (follower !== undefined && pooled !== undefined && !state.heldNowhere) this.poolChecks.remember(key, tip, state);
    else this.poolChecks.forget(key);
    return state;
  }

  private async stillCounted(record: LeasedOperation, chain: EvmChain, pass: PassReads): Promise<boolean> {
    if (record.sender === null || record.nonce === null) return true;
    const next = await pass.nextNonce(chain, record.sender).catch(() => undefined);
    return next !== undefined && next > record.nonce;
  }

  /** The one of `hashes` the node holds unmined (the one the record follows asked first), or undefined. */
  private async pooled(chain: EvmChain, hashes: string[]): Promise<string | undefined> {
    if ((await chain.provider.getTransaction(hashes[0]!)) !== null) return hashes[0];
    if (hashes.length === 1) return undefined;
    const others = await Promise.all(hashes.slice(1).map((each) => chain.provider.getTransaction(each)));
    const index = others.findIndex((each) => each !== null);
    return index === -1 ? undefined : hashes[index + 1];
  }
}

/** What an ERC721 mint's receipt says it minted: a batch's ids in the order of its recipients, or one mint's id. */
function mintedTokens(record: LeasedOperation, ids: string[]): { tokenId: string } | { tokenIds: string[] } | undefined {
  if (Array.isArray(record.params.recipients)) return { tokenIds: ids };
  return ids[0] !== undefined ? { tokenId: ids[0] } : undefined;
}
