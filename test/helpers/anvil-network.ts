import { toQuantity } from "ethers";

import { startAnvil, type AnvilNode } from "./anvil.js";

export interface AnvilNetwork {
  nodes: AnvilNode[];
  /**
   * `producer` mines a block from its own pool; every other node takes that very block (same hash, checked), then keeps
   * what else its pool held and is still valid, as a node resets its pool on a new head. Pools are never shared: a
   * transaction only one node holds is mined only if that node produces a block. Answers the block's number.
   * Run it while nothing else talks to the nodes (a load balancer's `exclusive`): a transaction arriving mid-import
   * would end up in one node's copy of the block only.
   */
  mine(producer: AnvilNode, options?: { behind?: AnvilNode[] }): Promise<number>;
  /** A node left `behind` takes the blocks it missed, in order (as a node that lagged catches up). */
  catchUp(node: AnvilNode): Promise<void>;
  /** Sets an account's balance on every node (their state stays one). */
  setBalance(address: string, wei: bigint): Promise<void>;
  /** Each node's next nonce for `address`, its own pool counted. */
  pendingNonces(address: string): Promise<number[]>;
  stop(): Promise<void>;
}

interface Block {
  number: string;
  hash: string;
  timestamp: string;
  transactions: string[];
}

interface PoolContent {
  pending: Record<string, Record<string, { hash: string; nonce: string }>>;
  queued: Record<string, Record<string, { hash: string; nonce: string }>>;
}

/** The raw transactions a node holds in its pool, each sender's in nonce order. */
async function poolOf(node: AnvilNode): Promise<string[]> {
  const content = (await node.rpc("txpool_content")) as PoolContent;
  const entries: Array<{ hash: string; nonce: number; sender: string }> = [];
  for (const part of [content.pending, content.queued]) {
    for (const [sender, byNonce] of Object.entries(part ?? {})) {
      for (const transaction of Object.values(byNonce)) entries.push({ hash: transaction.hash, nonce: Number(transaction.nonce), sender });
    }
  }
  entries.sort((a, b) => a.sender.localeCompare(b.sender) || a.nonce - b.nonce);
  return Promise.all(entries.map(async (entry) => (await node.rpc("eth_getRawTransactionByHash", [entry.hash])) as string));
}

/**
 * Real anvil nodes of one chain that mine only when told (`--no-mining`), from one genesis (the same `--timestamp`):
 * the nodes behind a provider's load balancer, which share the chain but not their transaction pools.
 */
export async function startAnvilNetwork(count = 2): Promise<AnvilNetwork> {
  const genesis = String(Math.floor(Date.now() / 1000));
  const nodes = await Promise.all(Array.from({ length: count }, () => startAnvil({ args: ["--no-mining", "--timestamp", genesis] })));

  const importBlock = async (node: AnvilNode, block: Block, raws: string[]) => {
    const kept = await poolOf(node);
    await node.rpc("anvil_dropAllTransactions");
    for (const raw of raws) await node.rpc("eth_sendRawTransaction", [raw]);
    await node.rpc("evm_mine", [Number(block.timestamp)]);
    const imported = (await node.rpc("eth_getBlockByNumber", [block.number, false])) as Block;
    if (imported.hash !== block.hash)
      throw new Error(`node ${node.url} made block ${Number(block.number)} as ${imported.hash}, not ${block.hash}`);
    // What the block made stale (a nonce it used) the node refuses: gone from its pool, as on any node.
    for (const raw of kept) await node.rpc("eth_sendRawTransaction", [raw]).catch(() => undefined);
  };

  // The blocks a node left behind has not taken yet, oldest first.
  const missed = new Map<AnvilNode, Array<{ block: Block; raws: string[] }>>();
  const catchUp = async (node: AnvilNode) => {
    for (const { block, raws } of missed.get(node) ?? []) await importBlock(node, block, raws);
    missed.delete(node);
  };

  return {
    nodes,
    mine: async (producer, options = {}) => {
      await producer.rpc("evm_mine");
      const block = (await producer.rpc("eth_getBlockByNumber", ["latest", false])) as Block;
      const raws = await Promise.all(
        block.transactions.map(async (hash) => (await producer.rpc("eth_getRawTransactionByHash", [hash])) as string),
      );
      await Promise.all(
        nodes
          .filter((node) => node !== producer)
          .map(async (node) => {
            if (options.behind?.includes(node)) return void missed.set(node, [...(missed.get(node) ?? []), { block, raws }]);
            await catchUp(node);
            await importBlock(node, block, raws);
          }),
      );
      return Number(block.number);
    },
    catchUp,
    setBalance: async (address, wei) => {
      await Promise.all(nodes.map((node) => node.rpc("anvil_setBalance", [address, toQuantity(wei)])));
    },
    pendingNonces: (address) =>
      Promise.all(nodes.map(async (node) => Number(await node.rpc("eth_getTransactionCount", [address, "pending"])))),
    stop: async () => {
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
}
