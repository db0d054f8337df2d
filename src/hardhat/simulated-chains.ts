import { createRequire } from "node:module";

import type { HardhatRuntimeEnvironment } from "hardhat/types/hre";

import type { SimulatedChainConnection, SimulatedChainFactory, SimulatedGenesis } from "../chains/evm/chain.js";

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

/** What the plugin hands the core: fresh in-process EDR chains from the project's Hardhat runtime, one per pair. */
export function hardhatSimulatedChains(hre: HardhatRuntimeEnvironment): SimulatedChainFactory {
  return async (info, genesis) => {
    if (genesis !== undefined && genesis.accounts.length > 0) {
      const restored = await withGenesis(hre, simulatedNetworkName(hre), info.chainId, genesis).catch(() => undefined);
      if (restored !== undefined) return restored;
    }
    return hre.network.create({
      network: simulatedNetworkName(hre),
      override: { chainId: info.chainId, mining: { auto: true, interval: 0 } },
    } as Parameters<typeof hre.network.create>[0]);
  };
}

/** The parts of Hardhat 3's EDR network that a genesis needs; not in its public exports (see withGenesis). */
interface HardhatEdrInternals {
  getProviderConfig(
    networkConfig: unknown,
    coverage: undefined,
    gasReport: undefined,
    chainDescriptors: unknown,
    traces: undefined,
  ): Promise<{ genesisState: Array<{ address: Uint8Array }>; defaultTransactionGasLimit: bigint; mining: { blockGasLimit?: bigint } }>;
  EdrProvider: new (
    provider: unknown,
    defaultTransactionGasLimit: bigint,
    blockGasLimitEnforced: boolean,
    traces: undefined,
    wrapper: undefined,
  ) => SimulatedChainConnection["provider"] & { close(): Promise<void> };
  getGlobalEdrContext(): Promise<{ createProvider(...args: unknown[]): Promise<unknown> }>;
  hardhatChainTypeToEdrChainType(chainType: string): string;
  ContractDecoder: new () => unknown;
}

let internals: Promise<HardhatEdrInternals> | undefined;

async function loadInternals(): Promise<HardhatEdrInternals> {
  const hardhatIndex = import.meta.resolve("hardhat");
  const at = (relative: string) => new URL(relative, hardhatIndex).href;
  const [provider, context, chainType] = await Promise.all([
    import(at("./internal/builtin-plugins/network-manager/edr/edr-provider.js")),
    import(at("./internal/edr/context.js")),
    import(at("./internal/edr/chain-type.js")),
  ]);
  const edr = createRequire(hardhatIndex)("@nomicfoundation/edr") as { ContractDecoder: new () => unknown };
  return {
    getProviderConfig: provider.getProviderConfig,
    EdrProvider: provider.EdrProvider,
    getGlobalEdrContext: context.getGlobalEdrContext,
    hardhatChainTypeToEdrChainType: chainType.hardhatChainTypeToEdrChainType,
    ContractDecoder: edr.ContractDecoder,
  };
}

const bytes = (hex: string) => new Uint8Array(Buffer.from(hex.replace(/^0x/, ""), "hex"));

/**
 * A fresh chain whose genesis holds `genesis`' accounts, code and storage. Hardhat's network config takes balances
 * only, and EDR sets state one JSON-RPC call at a time at a few thousand calls a second (slower than replaying the
 * transactions that made it), so the chain is made the way Hardhat makes its EDR networks, with the accounts added to
 * EDR's genesis state. Those pieces are internal to Hardhat 3: when they are not where they were (another Hardhat
 * version), this fails and the caller makes a plain chain and sets the accounts by call.
 */
async function withGenesis(
  hre: HardhatRuntimeEnvironment,
  network: string,
  chainId: number,
  genesis: SimulatedGenesis,
): Promise<SimulatedChainConnection> {
  internals ??= loadInternals();
  const hardhat = await internals.catch((error: unknown) => {
    internals = undefined;
    throw error;
  });
  const base = hre.config.networks[network] as unknown as { chainType: string; mining: Record<string, unknown> };
  const networkConfig = { ...base, chainId, mining: { ...base.mining, auto: true, interval: 0 } };
  const config = await hardhat.getProviderConfig(networkConfig, undefined, undefined, hre.config.chainDescriptors, undefined);
  const ours = new Set(genesis.accounts.map((account) => account.address.toLowerCase()));
  // Thousands of tokens share a handful of codes: each is converted once.
  const codes = new Map<string, Uint8Array>();
  const codeBytes = (code: string) => codes.get(code) ?? codes.set(code, bytes(code)).get(code)!;
  config.genesisState = [
    ...config.genesisState.filter((account) => !ours.has(`0x${Buffer.from(account.address).toString("hex")}`)),
    ...genesis.accounts.map((account) => ({
      address: bytes(account.address),
      balance: account.balance,
      nonce: account.nonce,
      ...(account.code !== undefined ? { code: codeBytes(account.code) } : {}),
      ...(account.storage !== undefined
        ? { storage: account.storage.map(([index, value]) => ({ index: BigInt(index), value: BigInt(value) })) }
        : {}),
    })),
  ];
  const context = await hardhat.getGlobalEdrContext();
  const edrProvider = await context.createProvider(
    hardhat.hardhatChainTypeToEdrChainType(base.chainType),
    config,
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => undefined },
    { subscriptionCallback: () => undefined },
    new hardhat.ContractDecoder(),
  );
  const provider = new hardhat.EdrProvider(
    edrProvider,
    config.defaultTransactionGasLimit,
    config.mining.blockGasLimit !== undefined,
    undefined,
    undefined,
  );
  return { provider, close: () => provider.close(), genesisApplied: true };
}
