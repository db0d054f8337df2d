import type { TransactionLike } from "ethers";

import { ceilingOf, type Fees } from "../../../domain/fee-ladder.js";
import type { EvmChain } from "../chain.js";

// No sender stranded by a prepare it abandons (docs/decisions/0047-no-sender-stranded.md). A key-in-body send that takes
// a nonce above one reserved for a prepared transaction cannot be mined until that nonce is used; if the caller never
// submits, nothing would use it. So the send, which holds the sender's key for this moment only, signs a zero-value
// transfer from the sender to itself at each such nonce, and the store keeps it beside the reservation before the send
// is recorded; the tracker sends it once the reservation expired unused (and not if the prepared transaction came first).

/** A zero-value transfer from a sender to itself, signed ahead at a reserved nonce (the store keeps it beside the reservation: `keepReservationFillers`). */
export interface ReservationFiller {
  nonce: number;
  rawTransaction: string;
}

/** How a send takes part: which reservations it passes keep no filler yet, and where the fillers signed are kept. */
export interface ReservationFillerHooks {
  /** The nonces of the sender's live reservations without a filler, ascending. */
  unfilled(): Promise<number[]>;
  /** Keeps the fillers beside their reservations (durably: before the send's record is written). */
  keep(fillers: ReservationFiller[]): Promise<void>;
}

/** The held nonces from `from` (the node's next, or past the sends before) up to `below`: some may be reservations. */
export function heldBetween(held: readonly number[], from: number, below: number): number[] {
  return held.filter((nonce) => nonce >= from && nonce < below);
}

/**
 * The fees of a filler: a type-2 one may pay up to the pair's ceiling, at the send's own tip (a base fee risen by the
 * time the reservation expires does not strand it, and it pays only the base fee and that tip); a legacy one the
 * send's gas price.
 */
export function fillerFees(fees: Fees, cap: bigint | undefined): Fees {
  if (fees.type === 0) return fees;
  const ceiling = ceilingOf(fees, cap);
  return {
    type: 2,
    maxFeePerGas: ceiling > fees.maxFeePerGas ? ceiling : fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  };
}

/**
 * Signs and keeps a filler for each live reservation among `candidates` (held nonces below the batch's sends) that keeps
 * none yet. Asks the store only when there are candidates; throws what keeping them threw (the batch is then not sent).
 */
export async function fillReservationsBelow(
  chain: EvmChain,
  send: { sender: string; sign(transaction: TransactionLike): Promise<{ raw: string }>; fees: Fees; gasLimit: bigint },
  candidates: readonly number[],
  hooks: ReservationFillerHooks,
): Promise<void> {
  if (candidates.length === 0) return;
  const reserved = new Set(await hooks.unfilled());
  const nonces = candidates.filter((nonce) => reserved.has(nonce));
  if (nonces.length === 0) return;
  const fillers = nonces.map(async (nonce): Promise<ReservationFiller> => {
    const transaction: TransactionLike = {
      chainId: chain.info.chainId,
      nonce,
      gasLimit: send.gasLimit,
      to: send.sender,
      value: 0n,
      data: "0x",
      ...(send.fees.type === 2
        ? { type: 2, maxFeePerGas: send.fees.maxFeePerGas, maxPriorityFeePerGas: send.fees.maxPriorityFeePerGas }
        : { type: 0, gasPrice: send.fees.gasPrice }),
    };
    return { nonce, rawTransaction: (await send.sign(transaction)).raw };
  });
  await hooks.keep(await Promise.all(fillers));
}
