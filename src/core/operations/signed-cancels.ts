import type { NonceFill, NonceFiller, SenderNonce } from "./nonce-healing.js";
import type { OperationStore } from "./types.js";

/**
 * The service's own cancels, signed ahead with a key-in-body send (its fee ladder's top step), as fillers of a nonce gap:
 * when the operation at a nonce ended without taking it (`failed` before its broadcast, `dropped`) and the sender's
 * later transactions wait above it, its cancel (a zero-value transfer to the sender) takes the nonce so they are mined.
 * Asked by the tracker's gap filler inside the sender's lock, after the service's unfinished records.
 */
export class SignedCancels implements NonceFiller {
  constructor(private readonly store: OperationStore) {}

  async fillerAt(gap: SenderNonce): Promise<NonceFill | undefined> {
    const cancel = await this.store.signedCancelAt(gap.chain, gap.network, gap.sender, gap.nonce);
    if (cancel === undefined) return undefined;
    return { rawTransaction: cancel.rawTransaction, description: `the pre-signed cancel of operation ${cancel.operationId}` };
  }
}

/**
 * The zero-value transfers to the sender that key-in-body sends signed ahead for the reservations below them, as fillers
 * of a nonce gap: a prepared transaction never submitted leaves its nonce unused once its reservation expired, and the
 * sends above it wait for it. Asked only then (the store answers none while the reservation is live), inside the
 * sender's lock, while no record holds the nonce: a submit that came first holds it.
 */
export class ReservationFillers implements NonceFiller {
  constructor(private readonly store: OperationStore) {}

  async fillerAt(gap: SenderNonce): Promise<NonceFill | undefined> {
    const filler = await this.store.reservationFillerAt(gap.chain, gap.network, gap.sender, gap.nonce);
    if (filler === undefined) return undefined;
    return {
      rawTransaction: filler.rawTransaction,
      description: `a zero-value transfer to the sender, signed ahead by a send above nonce ${gap.nonce}: the transaction prepared for it was not submitted before its reservation expired at ${filler.expiresAt}`,
    };
  }
}
