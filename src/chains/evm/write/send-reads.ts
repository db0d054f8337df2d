import type { Fees } from "../../../domain/fee-ladder.js";
import { LruMap } from "../../../domain/lru-map.js";
import type { EvmChain } from "../chain.js";
import type { HeadFollower } from "../follow/head-follower.js";
import { feesOfFeeData } from "./transaction-fields.js";

// What a batch of sends reads of its chain and sender before it signs: the fees, the sender's next nonce and its funds.
// On a simulated chain (in process, free to ask) the node is asked for all of them every time. On a live chain every call
// counts against a provider's quota (issue 28: a launch's preparation was five calls of eight): the fees come from the
// head its follower reads anyway, the sender's next nonce is asked (the key may send elsewhere too), and its funds are
// counted by the service's own sends while that nonce shows no other (docs/decisions/0049-steady-launch-cost.md).

/** How long the node's suggested priority fee (or, on a chain without a base fee, its gas price) stands: an Ethereum slot. */
export const FEE_SUGGESTION_MS = 12_000;
/** What ethers' getFeeData takes as the priority fee when the node suggests none. */
const DEFAULT_PRIORITY_FEE = 1_000_000_000n;
/** Senders whose funds are counted per chain: the least recently used is asked of the node again. */
const COUNTED_SENDERS = 10_000;

/** A sender's next nonce and funds, as a batch plans with them. */
export interface SenderReading {
  /** The node's pending count. */
  nonce: number;
  /**
   * Read: the node's pending balance. Counted: that balance as last read, less what every send planned since may cost at
   * most, those not broadcast yet included (a bound below what the node holds).
   */
  funds: bigint;
  counted: boolean;
}

/** What the node asks of a transaction now. */
export interface FeeAsks {
  /** The fees a transaction is signed with: the base fee doubled plus the suggested tip (as ethers' getFeeData). */
  fees: Fees;
  /**
   * The least it must pay to be taken at the head: the head's base fee plus the suggested tip (a chain without a base
   * fee: the node's gas price). A transaction paying this waits in line, not for lower fees.
   */
  floor: Fees;
}

export interface SendReads {
  /** The fees a transaction takes now: EIP-1559 where the chain has a base fee, else a gas price. */
  fees(): Promise<Fees>;
  /** The fees a transaction takes now, and the least the head would take. */
  asks(): Promise<FeeAsks>;
  /** The sender's next nonce, and its funds, counted where the count still holds. */
  sender(sender: string): Promise<SenderReading>;
  /** The node's answer for the sender's funds now (a count that would refuse a send is checked against it first). */
  freshFunds(sender: string): Promise<bigint>;
  /** A batch planned its sends: the nonce after its last, and the funds they leave. */
  planned(sender: string, next: number, funds: bigint): void;
  /** A nonce of the sender's will not reach the node (refused, not recorded): its funds are asked again. */
  forget(sender: string): void;
}

/** The node asked every time: a simulated chain. */
class NodeReads implements SendReads {
  constructor(protected readonly chain: EvmChain) {}

  async fees(): Promise<Fees> {
    return feesOfFeeData(await this.chain.provider.getFeeData());
  }

  async asks(): Promise<FeeAsks> {
    const [fees, head] = await Promise.all([this.fees(), this.chain.provider.getBlock("latest")]);
    return { fees, floor: floorOf(fees, head?.baseFeePerGas ?? null) };
  }

  async sender(sender: string): Promise<SenderReading> {
    const [nonce, funds] = await Promise.all([
      this.chain.provider.getTransactionCount(sender, "pending"),
      this.chain.provider.getBalance(sender, "pending"),
    ]);
    return { nonce, funds, counted: false };
  }

  freshFunds(sender: string): Promise<bigint> {
    return this.chain.provider.getBalance(sender, "pending");
  }

  planned(_sender: string, _next: number, _funds: bigint): void {}

  forget(_sender: string): void {}
}

/** Fees from the followed head, funds counted between reads while the nonce agrees: a live chain. */
class CountedReads extends NodeReads {
  /** By sender: the nonce after the last send the service planned, and the funds left after it. */
  private readonly counts = new LruMap<string, { next: number; funds: bigint }>(COUNTED_SENDERS);
  private readonly suggestions = new Map<string, { value: Promise<bigint>; at: number }>();

  constructor(
    chain: EvmChain,
    private readonly follower: HeadFollower,
  ) {
    super(chain);
  }

  override async fees(): Promise<Fees> {
    return (await this.asks()).fees;
  }

  override async asks(): Promise<FeeAsks> {
    // The head read at most one poll interval ago (the follower's, for the tracker too): its base fee is what ethers'
    // getFeeData would read of the latest block, and the fees are set from it as ethers sets them. The priority fee is
    // asked beside the head, not after it, unless the chain is known to have no base fee.
    const legacy = this.follower.latest?.baseFeePerGas === null;
    const priority = legacy ? undefined : this.suggested("eth_maxPriorityFeePerGas").catch(() => DEFAULT_PRIORITY_FEE);
    await this.follower.head();
    const baseFee = this.follower.latest!.baseFeePerGas;
    if (baseFee === null) {
      const fees: Fees = { type: 0, gasPrice: await this.suggested("eth_gasPrice") };
      return { fees, floor: fees };
    }
    const tip = await (priority ?? this.suggested("eth_maxPriorityFeePerGas").catch(() => DEFAULT_PRIORITY_FEE));
    const fees: Fees = { type: 2, maxFeePerGas: baseFee * 2n + tip, maxPriorityFeePerGas: tip };
    return { fees, floor: floorOf(fees, baseFee) };
  }

  override async sender(sender: string): Promise<SenderReading> {
    const count = this.counts.get(sender.toLowerCase());
    // No count yet: both asked at once.
    if (count === undefined) return super.sender(sender);
    const nonce = await this.chain.provider.getTransactionCount(sender, "pending");
    // The node counts exactly the service's sends since: nothing else spent from the key (another wallet, a replica, a
    // task would have taken a nonce), and none of the service's own is still on its way.
    if (count.next === nonce) return { nonce, funds: count.funds, counted: true };
    return { nonce, funds: await this.freshFunds(sender), counted: false };
  }

  override planned(sender: string, next: number, funds: bigint): void {
    this.counts.set(sender.toLowerCase(), { next, funds });
  }

  override forget(sender: string): void {
    this.counts.delete(sender.toLowerCase());
  }

  /** The node's suggestion for `method`, asked at most once per FEE_SUGGESTION_MS (a failed ask is not kept). */
  private suggested(method: "eth_gasPrice" | "eth_maxPriorityFeePerGas"): Promise<bigint> {
    const now = Date.now();
    const kept = this.suggestions.get(method);
    if (kept !== undefined && now - kept.at < FEE_SUGGESTION_MS) return kept.value;
    const value = this.chain.requestAll!([{ method, params: [] }]).then(([answer]) => {
      if (answer?.status !== "fulfilled") throw answer?.reason ?? new Error(`the node sent no answer to ${method}`);
      return BigInt(answer.value as string);
    });
    this.suggestions.set(method, { value, at: now });
    value.catch(() => {
      if (this.suggestions.get(method)?.value === value) this.suggestions.delete(method);
    });
    return value;
  }
}

/** The least the head takes, beside the fees a transaction is signed with: its base fee plus the same tip. */
function floorOf(fees: Fees, baseFee: bigint | null): Fees {
  if (fees.type === 0 || baseFee === null) return fees;
  return { type: 2, maxFeePerGas: baseFee + fees.maxPriorityFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
}

const readsByChain = new WeakMap<EvmChain, SendReads>();

/** The chain's send reads: counted where the chain has a head follower (a live one), the node asked elsewhere. */
export function sendReadsOf(chain: EvmChain): SendReads {
  let reads = readsByChain.get(chain);
  if (reads === undefined) {
    reads = chain.follower === undefined ? new NodeReads(chain) : new CountedReads(chain, chain.follower);
    readsByChain.set(chain, reads);
  }
  return reads;
}
