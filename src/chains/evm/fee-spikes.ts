import type { ChainFault } from "../../domain/faults.js";
import type { FaultLedger, FaultState, Spike } from "./fault-states.js";

// The base fee faults give a simulated chain's blocks: a fee spike's while it lasts (counted in the blocks mined at
// it), then once the base fee before it, then the node's own.

/** `value` × `multiplier`, to a millionth of the multiplier, rounded up. */
function scaled(value: bigint, multiplier: number): bigint {
  const millionths = BigInt(Math.round(multiplier * 1_000_000));
  return (value * millionths + 999_999n) / 1_000_000n;
}

export class FeeSpikes {
  private spike: Spike | undefined;
  /** The base fee the next block gets once a spike is over. */
  private restoreFee: bigint | undefined;

  constructor(private readonly ledger: FaultLedger) {}

  /** Whether a spike is active, or the block after one has yet to be mined. */
  get busy(): boolean {
    return this.spike !== undefined || this.restoreFee !== undefined;
  }

  /** The base fee a fault gives the next block: the spike's, or, once it is over, the one before it. */
  nextFee(): bigint | undefined {
    return this.spike?.fee ?? this.restoreFee;
  }

  /**
   * The base fee of the block of each of the next `count` transactions, as if each makes one (a chain mining on send):
   * the spike's while it lasts, then once the fee before it, then the node's own (undefined). Journaled with each, and
   * given to its block, whatever happens meanwhile.
   */
  plannedFees(count: number): Array<bigint | undefined> {
    const spike = this.spike;
    let spikeBlocks = spike?.blocksLeft ?? 0;
    let restore = spike?.baseline ?? this.restoreFee;
    return Array.from({ length: count }, () => {
      if (spike !== undefined && spikeBlocks > 0) {
        spikeBlocks--;
        return spike.fee;
      }
      const fee = restore;
      restore = undefined;
      return fee;
    });
  }

  /** Starts a spike from the latest block's base fee; answers the fee its blocks get (the first is mined at once). */
  start(base: FaultState, fault: Extract<ChainFault, { fault: "fee-spike" }>, latest: { baseFeePerGas?: string }): bigint {
    // A spike replacing a spike is measured from the base fee before the first.
    const baseline = this.spike?.baseline ?? BigInt(latest.baseFeePerGas ?? 0);
    const fee = fault.baseFeePerGas ?? scaled(baseline, fault.multiplier);
    if (this.spike !== undefined) this.ledger.end(this.spike, `replaced by ${base.id}`);
    this.spike = this.ledger.begin<Spike>(base, {
      fee,
      baseline,
      blocksLeft: fault.blocks,
      effect: { baseFeePerGas: fee.toString(), baseFeeBefore: baseline.toString(), blocks: 0 },
    });
    return fee;
  }

  /** Blocks were mined: the block after a spike had its fee. */
  blocksMined(): void {
    this.restoreFee = undefined;
  }

  /** Blocks were mined at `fee`: the spike's count down (those mined at its base fee); it ends when none are left. */
  countDown(count: number, fee: bigint | undefined): void {
    const spike = this.spike;
    // The spike's blocks are those mined at its base fee.
    if (spike !== undefined && fee === spike.fee) {
      spike.blocksLeft -= count;
      spike.effect.blocks = (spike.effect.blocks as number) + count;
      if (spike.blocksLeft <= 0) {
        this.spike = undefined;
        this.restoreFee = spike.baseline;
        this.ledger.end(spike, "ran its length");
      }
    }
  }

  /** Ends `state` if it is the spike: the next block is back at the base fee before it. */
  stop(state: FaultState): void {
    if (state === this.spike) {
      this.spike = undefined;
      this.restoreFee = (state as Spike).baseline;
    }
  }
}
