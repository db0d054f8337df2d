import { appendFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { BrowserProvider, toQuantity, type Eip1193Provider } from "ethers";
import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";
import type { NetworkConnection } from "hardhat/types/network";

import type { EvmChain, EvmNetworkInfo } from "./chain.js";

type JournalEntry = { op: "rawTransaction"; raw: string } | { op: "fund"; address: string; amount: string };

export interface SimulatedChainOptions {
  /** 0 mines every transaction at once; N > 0 mines a block every N seconds. */
  blockTimeSeconds: number;
  /** When set, every state change is journaled there and replayed on the next start, so tasks run in separate processes share one chain. */
  journalPath?: string;
}

/**
 * The Hardhat network the simulated chains are made from. Not the selected one: `--network sepolia`
 * (chosen for its accounts) may be an HTTP network, whose type Hardhat does not let an override change.
 */
function simulatedNetworkName(hre: HardhatRuntimeEnvironment): string {
  if (hre.config.networks.default?.type === "edr-simulated") return "default";
  const simulated = Object.entries(hre.config.networks).find(([, config]) => config.type === "edr-simulated");
  if (simulated === undefined) throw new Error("the Hardhat config defines no edr-simulated network to run simulated chains on");
  return simulated[0];
}

/**
 * An in-process EDR chain with the pair's real chain id. EDR keeps state in
 * memory only, so the chain is made durable by journaling the signed
 * transactions and faucet grants that changed it, and replaying them at start.
 */
export class SimulatedChain implements EvmChain {
  readonly simulated = true;
  readonly endpoint = "in-process EDR (simulated)";
  readonly pollingIntervalMs = 50;
  readonly provider: BrowserProvider;

  private constructor(
    readonly info: EvmNetworkInfo,
    private readonly connection: NetworkConnection<string>,
    private readonly journalPath: string | undefined,
  ) {
    this.provider = new BrowserProvider(connection.provider as unknown as Eip1193Provider, info.chainId, {
      cacheTimeout: -1,
    });
  }

  static async start(hre: HardhatRuntimeEnvironment, info: EvmNetworkInfo, options: SimulatedChainOptions): Promise<SimulatedChain> {
    const connection = await hre.network.create({
      network: simulatedNetworkName(hre),
      override: { chainId: info.chainId, mining: { auto: true, interval: 0 } },
    } as Parameters<typeof hre.network.create>[0]);
    const chain = new SimulatedChain(info, connection, options.journalPath);
    await chain.replayJournal();
    if (options.blockTimeSeconds > 0) {
      await chain.request("evm_setAutomine", [false]);
      await chain.request("evm_setIntervalMining", [Math.round(options.blockTimeSeconds * 1000)]);
    }
    return chain;
  }

  async broadcast(signedTransaction: string): Promise<string> {
    const hash = (await this.request("eth_sendRawTransaction", [signedTransaction])) as string;
    await this.journal({ op: "rawTransaction", raw: signedTransaction });
    return hash;
  }

  async fund(address: string, amount: bigint): Promise<bigint> {
    const balance = await this.addBalance(address, amount);
    await this.journal({ op: "fund", address, amount: amount.toString() });
    return balance;
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  private async addBalance(address: string, amount: bigint): Promise<bigint> {
    const current = BigInt((await this.request("eth_getBalance", [address, "latest"])) as string);
    const next = current + amount;
    await this.request("hardhat_setBalance", [address, toQuantity(next)]);
    return next;
  }

  private request(method: string, params: unknown[]): Promise<unknown> {
    return this.connection.provider.request({ method, params });
  }

  private async journal(entry: JournalEntry): Promise<void> {
    if (this.journalPath === undefined) return;
    await mkdir(path.dirname(this.journalPath), { recursive: true });
    await appendFile(this.journalPath, `${JSON.stringify(entry)}\n`);
  }

  private async replayJournal(): Promise<void> {
    if (this.journalPath === undefined) return;
    let text: string;
    try {
      text = await readFile(this.journalPath, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw error;
    }
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      const entry = JSON.parse(line) as JournalEntry;
      if (entry.op === "fund") {
        await this.addBalance(entry.address, BigInt(entry.amount));
      } else {
        // A transaction that reverted the first time reverts again; it still belongs to the history.
        await this.request("eth_sendRawTransaction", [entry.raw]).catch(() => undefined);
      }
    }
  }
}
