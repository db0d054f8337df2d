/** A JSON-RPC request to the in-process node. */
type Node = (method: string, params: unknown[]) => Promise<unknown>;

/**
 * Which transaction each sender's nonce holds in a simulated chain's pool, to tell when a transaction the node took
 * replaced another (a speed-up or a cancel: the same sender and nonce, higher fees). The chain's journal then forgets
 * the replaced one, so that a restart, replaying the journal in order, does not mine it in place of its replacement.
 * Only where transactions wait in a pool (a block time, or a stall): a chain mining on send has none to replace.
 */
export class PoolSlots {
  private readonly slots = new Map<string, string>();

  constructor(
    /** Slots kept at most, the oldest let go first: only recent nonces can still be pending and replaced. */
    private readonly limit = 4096,
  ) {}

  /** Takes note of a transaction the node just took; answers the unmined one it replaced, if any. */
  async took(node: Node, hash: string): Promise<string | undefined> {
    const sent = (await node("eth_getTransactionByHash", [hash])) as { from?: string; nonce?: string } | null;
    if (sent?.from === undefined || sent.nonce === undefined) return undefined;
    const slot = `${sent.from.toLowerCase()}:${BigInt(sent.nonce)}`;
    const before = this.slots.get(slot);
    this.slots.delete(slot);
    this.slots.set(slot, hash);
    if (this.slots.size > this.limit) this.slots.delete(this.slots.keys().next().value!);
    if (before === undefined || before === hash) return undefined;
    // Mined before (then this one would have been refused), it is history, not a replaced transaction.
    return (await node("eth_getTransactionReceipt", [before])) === null ? before : undefined;
  }

  /** Forgets every slot (nothing waits in the pool any more). */
  clear(): void {
    this.slots.clear();
  }
}
